//! Going about a run: to a step by its number (Go to Step…, `arbor edit --at`), and to the
//! breakpoint hits after and before the shown step.

use super::{Debugger, as_recorded};
use crate::debug::Breakpoint;

/// What Next and Previous Breakpoint Hit say when the tree shown has no breakpoint.
const NO_BREAKPOINTS: &str = "No breakpoint on this tree: F9 sets one on the selected node";

impl Debugger {
    /// Shows step `k` and pauses there; returns what to say. A live run rebuilds a past
    /// step from its history and runs on to a later one (breakpoints do not stop it), at
    /// most to [`crate::check::file::MAX_STEPS`]; a trace, or a game shown live, shows its
    /// last step for one past it, and says so. Without a run there is no step to go to.
    pub fn go_to_step(&mut self, k: u64) -> Result<String, String> {
        let Some(run) = self.source() else {
            return Err("There is no run to go to a step of".to_owned());
        };
        let last = run.head();
        let max = crate::check::file::MAX_STEPS;
        if !self.is_replay() && k > max {
            return Err(format!(
                "Step {k} is too far: a run goes to step {max} at most"
            ));
        }
        self.running = false;
        let to = if self.is_replay() { k.min(last) } else { k };
        self.seek(to);
        let shown = self.step_number();
        Ok(match self.live_game() {
            _ if shown == k => format!("At step {k}"),
            Some(_) => {
                format!("Step {k} is past the newest step the game has sent: at step {shown}")
            }
            None => format!("Step {k} is past the end of the recording: at its last step, {shown}"),
        })
    }

    /// Goes to the next step where one of `breakpoints` (on the tree shown) hits, and
    /// pauses there: a replay's next recorded hit, or a live run stepped on (at most
    /// [`crate::debug::UNTIL_CHANGE_LIMIT`] steps). Says where, or that there is none.
    pub fn next_hit(&mut self, breakpoints: &[Breakpoint]) {
        self.go_to_hit(breakpoints, true);
    }

    /// Goes back to the last step before the shown one where one of `breakpoints` (on the
    /// tree shown) hits, and pauses there; says where, or that there is none.
    pub fn previous_hit(&mut self, breakpoints: &[Breakpoint]) {
        self.go_to_hit(breakpoints, false);
    }

    /// [`Debugger::next_hit`] (`forward`), or [`Debugger::previous_hit`].
    fn go_to_hit(&mut self, breakpoints: &[Breakpoint], forward: bool) {
        self.running = false;
        let from = self.step_number();
        if breakpoints.is_empty() {
            self.news = Some(NO_BREAKPOINTS.to_owned());
            return;
        }
        let Some(run) = &mut self.run else { return };
        let breakpoints = as_recorded(&self.aliases, breakpoints);
        let hits = if forward {
            run.to_next_hit(&breakpoints)
        } else {
            run.to_previous_hit(&breakpoints)
        };
        if !hits.is_empty() {
            self.after_steps(hits);
            return;
        }
        let now = self.step_number();
        self.stopped = None;
        self.news = Some(match (forward, now > from) {
            (true, true) => format!(
                "No breakpoint hit in the {} steps after step {from}: at step {now}",
                now - from
            ),
            (true, false) => format!("No breakpoint hit after step {from}"),
            (false, _) => format!("No breakpoint hit before step {from}"),
        });
        self.refresh_live();
    }
}
