//! Going about the run from the editor: Go to Step…, Next and Previous Breakpoint Hit,
//! and `arbor edit --trace FILE --at STEP` (the step, agent and node a replay opens at).

use super::EditorApp;
use super::changes::Change;

impl EditorApp {
    /// Shows step `k` of the run (Go to Step…), and says where it is.
    pub(super) fn go_to_step(&mut self, k: u64) {
        let Some(run) = self.simulation_mut() else {
            return;
        };
        match run.go_to_step(k) {
            Ok(said) => self.say(said),
            Err(why) => self.say_problem(why),
        }
        self.after_sim();
    }

    /// Draws Go to Step's field over the canvas (below Find Node's bar when that is open)
    /// and queues what it asks for.
    pub(super) fn go_to_ui(&mut self, ctx: &eframe::egui::Context) {
        let Some(area) = self.canvas.area() else {
            return;
        };
        let run = self.simulation().and_then(|s| s.source());
        let (shown, last) = run.map_or((0, 0), |r| (r.step_number(), r.head()));
        let look = super::field::Look {
            id: "go-to-step",
            label: "Go to step",
            hint: format!("0 to {last}"),
            note: format!("now at {shown} of {last}"),
            go: "Show that step (Enter)",
            width: 100.0,
        };
        match self
            .go_to
            .ui(ctx, area, self.find.open, &look, super::field::step_number)
        {
            Some(Ok(k)) => self.queue.push(Change::GoToStep(k)),
            Some(Err(why)) => self.queue.push(Change::Refused(why)),
            None => {}
        }
    }

    /// Goes to the next breakpoint hit (`next`), or back to the previous one.
    pub(super) fn go_to_hit(&mut self, next: bool) {
        if let Some((run, breakpoints)) = self.debugging() {
            if next {
                run.next_hit(breakpoints);
            } else {
                run.previous_hit(breakpoints);
            }
        }
        self.after_sim();
    }

    /// The replay opened from the command line taken to where `from` says: the step
    /// (`--at`; one past the trace's end shows its last, said), the agent watched
    /// (`--watch`) and the node selected (`--select`). The rest of `from` starts a run, which
    /// a replay is not: `arbor edit` refuses it with a trace.
    pub fn replay_from(&mut self, from: &crate::debug::RunFrom) {
        let mut said = None;
        let mut problems = Vec::new();
        let Some(run) = self.simulation_mut() else {
            return;
        };
        if let Some(name) = &from.watch {
            match run
                .source()
                .and_then(|r| r.agent_names().iter().position(|n| n == name))
            {
                Some(i) => run.watch(i),
                None => problems.push(format!(
                    "--watch {name}: no agent of the trace has that name"
                )),
            }
        }
        if let Some(k) = from.at {
            match run.go_to_step(k) {
                Ok(s) => said = Some(s),
                Err(why) => problems.push(why),
            }
        }
        if let Some(node) = &from.select {
            run.set_select(run.shown(node));
        }
        self.after_sim();
        if !problems.is_empty() {
            self.say_problem(problems.join("; "));
        } else if let Some(said) = said {
            self.say(said);
        }
    }
}
