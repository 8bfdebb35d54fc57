//! Where a run starts when the editor opens it from the command line (`arbor edit
//! --scenario --seed --dt --trigger --at`, as `arbor test` prints it for a failure), and
//! the breakpoints the command line gives (`arbor run --break NODE[:ON]`). Its triggers
//! are read by `world::Trigger::parse`.

use std::path::PathBuf;

use super::{BreakOn, Breakpoint};

/// Parses `NODE[:ON]` (`arbor run --break`): ON is a [`BreakOn::name`], `enter` when left
/// out.
pub fn parse_break(text: &str) -> Result<Breakpoint, String> {
    let (node, on) = match text.rsplit_once(':') {
        Some((node, on)) => {
            let on = BreakOn::from_name(on.trim()).ok_or_else(|| {
                let all: Vec<&str> = BreakOn::ALL.iter().map(|b| b.name()).collect();
                format!(
                    "--break '{text}': '{on}' is not a condition; use one of {}",
                    all.join(", ")
                )
            })?;
            (node, on)
        }
        None => (text, BreakOn::Enter),
    };
    if node.trim().is_empty() {
        return Err(format!("--break '{text}': the node id is empty"));
    }
    Ok(Breakpoint {
        node: node.trim().to_owned(),
        on,
    })
}

/// Where `arbor edit` takes the run before the window opens (the editor's `EditorApp::run_from`).
#[derive(Clone, Debug)]
pub struct RunFrom {
    /// A scenario to run the tree in, instead of the one beside it.
    pub scenario: Option<PathBuf>,
    /// Run the tree alone in an empty world, even with a scenario beside it.
    pub solo: bool,
    /// In the scenario, every agent runs the tree, instead of the agents whose own tree
    /// it is (as `arbor run TREE --scenario SCENARIO`).
    pub every_agent: bool,
    /// The seed.
    pub seed: u64,
    /// Seconds per step.
    pub dt: f64,
    /// The step to show.
    pub at: Option<u64>,
    /// The agent to watch (by name).
    pub watch: Option<String>,
    /// The node to select and centre (its id, or trace id inside a SubTree).
    pub select: Option<String>,
    /// Triggers before their steps (those up to `at` are given).
    pub triggers: Vec<crate::world::Trigger>,
}

impl Default for RunFrom {
    /// The run as the editor starts it: the scenario beside the tree, seed 0, 0.1 s a
    /// step, at its first step.
    fn default() -> Self {
        Self {
            scenario: None,
            solo: false,
            every_agent: false,
            seed: 0,
            dt: crate::world::DT,
            at: None,
            watch: None,
            select: None,
            triggers: Vec::new(),
        }
    }
}

impl RunFrom {
    /// Whether it asks for nothing but the run the editor starts anyway.
    pub fn is_default(&self) -> bool {
        self.scenario.is_none()
            && !self.solo
            && !self.every_agent
            && self.seed == 0
            && self.dt == crate::world::DT
            && self.at.is_none()
            && self.watch.is_none()
            && self.select.is_none()
            && self.triggers.is_empty()
    }

    /// Whether it asks for nothing but where to look: the step, the agent watched and the
    /// node selected (all a replayed trace takes).
    pub fn only_where(&self) -> bool {
        Self {
            at: None,
            watch: None,
            select: None,
            ..self.clone()
        }
        .is_default()
    }
}
