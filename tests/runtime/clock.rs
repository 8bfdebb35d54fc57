//! SEMANTICS.md §3.3.1: the instance clock, the sum of the dts of the steps taken, kept through
//! run completions, resets and interrupts, the same on the quiet and the observed path.

use crate::harness::Run;

const TREE: &str = "root: Root | child s | interrupts int
     s: Sequence | children a b
     a: MockAction script=RS
     b: MockAction script=F
     int: Interrupt interrupt_id=go | child x
     x: MockAction script=RS";

#[test]
fn the_clock_adds_each_steps_dt_through_completions_and_interrupts() {
    let mut observed = Run::new(TREE);
    let mut quiet = Run::new(TREE);
    assert_eq!(observed.instance.clock(), 0.0);
    let dts = [0.1, 0.25, 0.5, 1.0 / 30.0, 0.1, 2.0, 0.1, 0.1];
    let mut sum = 0.0;
    for (k, &dt) in dts.iter().enumerate() {
        if k == 4 {
            observed.trigger("go", None);
            quiet.trigger("go", None);
        }
        observed.dt = dt;
        observed.step();
        quiet.instance.step(dt, &mut (), None);
        sum += dt;
        assert_eq!(observed.instance.clock(), sum, "step {}", k + 1);
        assert_eq!(quiet.instance.clock(), sum, "step {}", k + 1);
    }
    // Runs completed (b fails each run) and the interrupt ran: the clock went on.
    assert!(observed.instance.stats().failed >= 1);
    assert_eq!(observed.instance.stats().interrupts, 1);
}
