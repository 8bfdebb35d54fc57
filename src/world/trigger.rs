//! A trigger a user gives a run: fire an Interrupt before a step, for one agent or for
//! every agent whose tree has it, with an optional payload. The one type for what the
//! command line (`--trigger STEP:ID[@AGENT][:VALUE]`), a behaviour test's `triggers`, the
//! editor's trigger buttons and a debugging session's history give; [`Trigger::parse`]
//! reads the typed form and `Display` writes it back. The runtime queues its own,
//! resolved form (`Instance::trigger`).

use std::fmt;

/// A trigger of an Interrupt before a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trigger {
    /// The step it is given before (1 is the first step taken).
    pub step: u64,
    /// The Interrupt: its id, or as the user typed it (an id or a title) until resolved.
    pub id: String,
    /// The agent it goes to; else every agent whose tree has the Interrupt.
    pub agent: Option<String>,
    /// Its payload: a world entity's name where one matches, else the text.
    pub payload: Option<String>,
}

impl Trigger {
    /// Reads `STEP:ID[@AGENT][:VALUE]`; the error names the text and what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut parts = text.splitn(3, ':');
        let (Some(step), Some(target)) = (parts.next(), parts.next()) else {
            return Err(format!(
                "--trigger '{text}': expected STEP:ID or STEP:ID:VALUE"
            ));
        };
        let step: u64 = step.trim().parse().map_err(|_| {
            format!("--trigger '{text}': STEP must be a whole number, not '{step}'")
        })?;
        if step == 0 {
            return Err(format!(
                "--trigger '{text}': STEP must be 1 or more (step 0 is the start)"
            ));
        }
        let (id, agent) = match target.split_once('@') {
            Some((id, agent)) => (id, Some(agent.trim().to_owned())),
            None => (target, None),
        };
        if id.trim().is_empty() {
            return Err(format!("--trigger '{text}': the interrupt id is empty"));
        }
        if agent.as_deref() == Some("") {
            return Err(format!("--trigger '{text}': the agent after '@' is empty"));
        }
        Ok(Self {
            step,
            id: id.trim().to_owned(),
            agent,
            payload: parts.next().map(str::to_owned),
        })
    }
}

/// `STEP:ID[@AGENT][:VALUE]`, as [`Trigger::parse`] reads it.
impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.step, self.id)?;
        if let Some(agent) = &self.agent {
            write!(f, "@{agent}")?;
        }
        if let Some(payload) = &self.payload {
            write!(f, ":{payload}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Trigger;

    #[test]
    fn a_trigger_reads_back_as_it_is_written() {
        for text in [
            "12:alarm",
            "3:alarm@guard",
            "4:receive_pass@b:ball",
            "5:x:a:b",
        ] {
            let t = Trigger::parse(text).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(t.to_string(), text);
        }
        let t = Trigger::parse("4:receive_pass@b:ball").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            (t.id.as_str(), t.agent.as_deref(), t.payload.as_deref()),
            ("receive_pass", Some("b"), Some("ball"))
        );
        for bad in ["x:alarm", "0:alarm", "3", "3:", "3:alarm@"] {
            assert!(Trigger::parse(bad).is_err(), "{bad}");
        }
    }
}
