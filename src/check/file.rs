//! Behaviour test files, `NAME.test.json` (docs/FORMAT.md, "Behaviour tests"): what to run
//! (a scenario, or a tree alone), with which seeds, for how many steps, with which
//! triggers, and what must come true, each expectation with a name.
//!
//! Reading a file checks its shape: the keys, the kinds of expectation and what each
//! takes, the seeds. Whether the nodes, agents and entities it names exist is checked when
//! its run is prepared ([`super::prepare`]). Either error names the file, the line and the
//! expectation.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::model::names::Num;
use serde_json::value::RawValue;

/// The `format` of a behaviour test file.
pub const TEST_FORMAT: &str = crate::io::header::TEST.name;
/// The newest version of the format this build reads.
pub const TEST_VERSION: u64 = crate::io::header::TEST.newest;
/// The most seeds one test may run: a range is expanded to a list.
pub const MAX_SEEDS: u64 = 100_000;
/// The most steps one run may take.
pub const MAX_STEPS: u64 = 10_000_000;
/// The most steps one test may take over all its seeds.
pub const MAX_TEST_STEPS: u64 = 1_000_000_000;

/// Why a test file cannot be run: the file, the line, the expectation when one is at
/// fault, and the problem.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}:{line}: error: {}{message}", path.display(), expectation.as_ref().map(|e| format!("expectation '{e}': ")).unwrap_or_default())]
pub struct TestFileError {
    /// The test file.
    pub path: PathBuf,
    /// The line (from 1).
    pub line: usize,
    /// The name of the expectation at fault, if one is.
    pub expectation: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Every problem found in a test file that cannot be run, in the file's order (one at
/// least), each on a line of its own when shown.
#[derive(Clone, Debug, PartialEq)]
pub struct TestFileErrors(pub Vec<TestFileError>);

impl std::fmt::Display for TestFileErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for TestFileErrors {}

impl From<TestFileError> for TestFileErrors {
    fn from(e: TestFileError) -> Self {
        Self(vec![e])
    }
}

/// What a test runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// A scenario in the simulated world; with `tree`, every agent runs that tree file
    /// instead of its own (as `arbor run TREE --scenario SCENARIO`).
    Scenario {
        /// The scenario file.
        scenario: PathBuf,
        /// The tree every agent runs instead of its own.
        tree: Option<PathBuf>,
    },
    /// A tree run alone, as `arbor run TREE` runs it (one agent named after the file).
    Tree(PathBuf),
}

/// A node event an expectation counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeEvent {
    /// The node is entered.
    Enters,
    /// The node exits with success.
    Succeeds,
    /// The node exits with failure.
    Fails,
    /// The node exits either way.
    Exits,
    /// The node is stopped from outside.
    Aborts,
}

impl NodeEvent {
    /// Each, with its key in a test file.
    pub const ALL: [(NodeEvent, &'static str); 5] = [
        (NodeEvent::Enters, "enters"),
        (NodeEvent::Succeeds, "succeeds"),
        (NodeEvent::Fails, "fails"),
        (NodeEvent::Exits, "exits"),
        (NodeEvent::Aborts, "aborts"),
    ];

    /// Its key in a test file (`enters`, `succeeds` …).
    pub fn key(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map_or("", |(_, k)| k)
    }

    /// As a sentence says it did not happen: "was not entered", "did not succeed" …
    pub fn not_past(self) -> &'static str {
        match self {
            NodeEvent::Enters => "was not entered",
            NodeEvent::Succeeds => "did not succeed",
            NodeEvent::Fails => "did not fail",
            NodeEvent::Exits => "did not exit",
            NodeEvent::Aborts => "was not aborted",
        }
    }

    /// As a sentence says it: "entered", "succeeded" …
    pub fn past(self) -> &'static str {
        match self {
            NodeEvent::Enters => "entered",
            NodeEvent::Succeeds => "succeeded",
            NodeEvent::Fails => "failed",
            NodeEvent::Exits => "exited",
            NodeEvent::Aborts => "aborted",
        }
    }
}

/// How many times something must happen: at least `at_least`, at most `at_most`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// The fewest times.
    pub at_least: u64,
    /// The most times, if bounded.
    pub at_most: Option<u64>,
}

/// What must happen first, for an expectation `within_steps` of it.
#[derive(Clone, Debug, PartialEq)]
pub enum After {
    /// The Interrupt (by id or title) starts.
    Trigger(String),
    /// A node event.
    Node(NodeEvent, String),
}

/// A place in the world.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A point `[x, y]`, in tiles.
    Point([f64; 2]),
    /// An entity, by name.
    Entity(String),
}

/// What an expectation checks.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A node event happens a number of times over the run.
    Node {
        /// Which event.
        event: NodeEvent,
        /// The node, by id or title.
        node: String,
        /// How many times.
        count: Count,
    },
    /// Each time `after` happens, the node event follows within `steps` steps.
    Within {
        /// Which event.
        event: NodeEvent,
        /// The node, by id or title.
        node: String,
        /// The steps allowed.
        steps: u64,
        /// What starts the clock.
        after: After,
    },
    /// Runs of the tree complete with `success` (or failure) a number of times.
    Completes {
        /// Success, or failure.
        success: bool,
        /// How many times.
        count: Count,
    },
    /// A leaf is running at the end of a step.
    Runs {
        /// The leaf, by id or title.
        node: String,
        /// The step.
        step: u64,
    },
    /// An agent is within `distance` tiles of a place.
    Near {
        /// The place.
        place: Place,
        /// The distance, in tiles.
        distance: f64,
        /// The step (else the end).
        step: Option<u64>,
    },
    /// An agent's health is above or below a value.
    Health {
        /// It must be above this.
        above: Option<f64>,
        /// It must be below this.
        below: Option<f64>,
        /// The step (else the end).
        step: Option<u64>,
    },
    /// An entity is destroyed (gone from the world).
    Gone {
        /// The entity, by name.
        entity: String,
        /// The step (else the end).
        step: Option<u64>,
    },
    /// A context key of an agent's tree holds a value.
    Context {
        /// The key.
        key: String,
        /// The value: an entity's name, a text, a number or a point.
        equals: serde_json::Value,
        /// The step (else the end).
        step: Option<u64>,
    },
}

/// A named expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// Its name, as failures and reports give it.
    pub name: String,
    /// Its line in the file.
    pub line: usize,
    /// The agent it is about; else any agent (trace expectations) or the only one.
    pub agent: Option<String>,
    /// What it checks.
    pub what: Expect,
}

/// A behaviour test file, read and checked for shape.
#[derive(Clone, Debug, PartialEq)]
pub struct TestFile {
    /// The file.
    pub path: PathBuf,
    /// The test's name: the file's name without `.test.json`.
    pub name: String,
    /// What the test is for.
    pub description: String,
    /// What it runs.
    pub target: Target,
    /// The line that says what it runs (its `scenario`, else its `tree`).
    pub target_line: usize,
    /// The seeds, each a run.
    pub seeds: Vec<u64>,
    /// Steps after the start.
    pub steps: u64,
    /// Seconds per step.
    pub dt: f64,
    /// Triggers, in the order of their steps, each with its line in the file (its
    /// Interrupt as written: an id or a title).
    pub triggers: Vec<(crate::world::Trigger, usize)>,
    /// The expectations, in the order given.
    pub expect: Vec<Expectation>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TestIn<'a> {
    // The header, checked before the body is read.
    #[serde(rename = "format")]
    _format: serde::de::IgnoredAny,
    #[serde(rename = "version")]
    _version: serde::de::IgnoredAny,
    #[serde(default)]
    description: String,
    scenario: Option<String>,
    tree: Option<String>,
    seeds: Option<serde_json::Value>,
    steps: u64,
    dt: Option<f64>,
    #[serde(default, borrow)]
    triggers: Vec<&'a RawValue>,
    #[serde(borrow)]
    expect: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TriggerIn {
    step: u64,
    interrupt: String,
    agent: Option<String>,
    value: Option<String>,
}

/// An expectation as written: one kind key, and what that kind takes.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectIn {
    name: Option<String>,
    agent: Option<String>,
    enters: Option<String>,
    succeeds: Option<String>,
    fails: Option<String>,
    exits: Option<String>,
    aborts: Option<String>,
    completes: Option<String>,
    runs: Option<String>,
    near: Option<serde_json::Value>,
    health_above: Option<f64>,
    health_below: Option<f64>,
    gone: Option<String>,
    context: Option<String>,
    equals: Option<serde_json::Value>,
    within: Option<f64>,
    within_steps: Option<u64>,
    after: Option<AfterIn>,
    at_least: Option<u64>,
    at_most: Option<u64>,
    at_step: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AfterIn {
    trigger: Option<String>,
    enters: Option<String>,
    succeeds: Option<String>,
    fails: Option<String>,
    exits: Option<String>,
    aborts: Option<String>,
}

/// The kinds of expectation, as their keys.
pub const KINDS: [&str; 12] = [
    "enters",
    "succeeds",
    "fails",
    "exits",
    "aborts",
    "completes",
    "runs",
    "near",
    "health_above",
    "health_below",
    "gone",
    "context",
];

/// Where each line of a text starts, to find the line of an offset in `log n`.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Self {
        Lines(
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    /// The line (from 1) of byte `offset`.
    fn at(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset).max(1)
    }
}

/// The line (from 1) of byte `offset` of `text`.
fn line_at(text: &str, offset: usize) -> usize {
    Lines::of(text).at(offset)
}

/// Where `part` (a slice of `text`) starts in it.
fn offset_of(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// The line of the first `"key"` in `text` (1 when absent).
fn line_of_key(text: &str, key: &str) -> usize {
    text.find(&format!("\"{key}\""))
        .map_or(1, |at| line_at(text, at))
}

/// Whether `path` names a behaviour test file by its name (`*.test.json`).
pub fn is_test_path(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".test.json"))
}

/// Whether `text` is a behaviour test file, by its header.
pub fn is_test(text: &str) -> bool {
    crate::io::read_header(text)
        .and_then(|h| h.format)
        .is_some_and(|f| f == TEST_FORMAT)
}

/// Reads and checks the test file at `path`.
pub fn load_test(path: &Path) -> Result<TestFile, TestFileErrors> {
    let text = crate::io::read_text(path).map_err(|e| TestFileError {
        path: path.to_owned(),
        line: 1,
        expectation: None,
        message: format!("cannot read the test file: {e}"),
    })?;
    parse_test(&text, path)
}

/// Reads the test file `path`, whose text is `text`. The expectations are all checked: a
/// file with problems in several gets them all.
pub fn parse_test(text: &str, path: &Path) -> Result<TestFile, TestFileErrors> {
    let error = |line: usize, expectation: Option<&str>, message: String| TestFileError {
        path: path.to_owned(),
        line,
        expectation: expectation.map(str::to_owned),
        message,
    };
    let fail = |line: usize, expectation: Option<&str>, message: String| {
        TestFileErrors::from(error(line, expectation, message))
    };
    // Another of Arbor's files (a tree, a scenario …) is said to be one, before its keys
    // are found wrong.
    if let Err(p) = crate::io::header::TEST.check(text) {
        let hint = match p.key {
            "format" => " (arbor test runs NAME.test.json files)",
            _ => "",
        };
        return Err(fail(
            line_of_key(text, p.key),
            None,
            format!("{}{hint}", p.message),
        ));
    }
    let raw: TestIn<'_> = serde_json::from_str(text)
        .map_err(|e| error(e.line().max(1), None, crate::io::worded(&e, text)))?;
    let folder = path.parent().unwrap_or(Path::new(""));
    let target = match (&raw.scenario, &raw.tree) {
        (Some(s), tree) => Target::Scenario {
            scenario: folder.join(s),
            tree: tree.as_ref().map(|t| folder.join(t)),
        },
        (None, Some(t)) => Target::Tree(folder.join(t)),
        (None, None) => {
            return Err(fail(
                1,
                None,
                "give what the test runs: \"scenario\" (a scenario file), \"tree\" (a tree run alone), or both (the tree in the scenario)".into(),
            ));
        }
    };
    let seeds =
        seeds(raw.seeds.as_ref()).map_err(|m| error(line_of_key(text, "seeds"), None, m))?;
    if raw.steps == 0 || raw.steps > MAX_STEPS {
        return Err(fail(
            line_of_key(text, "steps"),
            None,
            format!("steps must be from 1 to {MAX_STEPS}, not {}", raw.steps),
        ));
    }
    if (seeds.len() as u64).saturating_mul(raw.steps) > MAX_TEST_STEPS {
        return Err(fail(
            line_of_key(text, "seeds"),
            None,
            format!(
                "{} seeds of {} steps: a test takes at most {MAX_TEST_STEPS} steps in all",
                seeds.len(),
                raw.steps
            ),
        ));
    }
    let dt = raw.dt.unwrap_or(crate::world::DT);
    if !(dt.is_finite() && dt > 0.0) {
        return Err(fail(
            line_of_key(text, "dt"),
            None,
            format!("dt must be a positive number of seconds, not {}", Num(dt)),
        ));
    }
    let lines = Lines::of(text);
    let mut triggers = Vec::with_capacity(raw.triggers.len());
    for t in &raw.triggers {
        let line = lines.at(offset_of(text, t.get()));
        let t: TriggerIn = serde_json::from_str(t.get()).map_err(|e| {
            error(
                line + e.line().saturating_sub(1),
                None,
                format!("trigger: {}", crate::io::worded(&e, t.get())),
            )
        })?;
        if t.step == 0 || t.step > raw.steps {
            return Err(fail(
                line,
                None,
                format!(
                    "trigger of '{}': step {} is not among the test's steps 1 to {}",
                    t.interrupt, t.step, raw.steps
                ),
            ));
        }
        triggers.push((
            crate::world::Trigger {
                step: t.step,
                id: t.interrupt,
                agent: t.agent,
                payload: t.value,
            },
            line,
        ));
    }
    if raw.expect.is_empty() {
        return Err(fail(
            line_of_key(text, "expect"),
            None,
            "the test expects nothing: add at least one expectation to \"expect\"".into(),
        ));
    }
    // In the order of their steps (a stable sort: triggers of one step keep theirs).
    triggers.sort_by_key(|(t, _)| t.step);
    let mut names = std::collections::HashSet::new();
    let mut expect: Vec<Expectation> = Vec::with_capacity(raw.expect.len());
    let mut problems = Vec::new();
    for (i, e) in raw.expect.iter().enumerate() {
        let line = lines.at(offset_of(text, e.get()));
        let named = serde_json::from_str::<serde_json::Value>(e.get())
            .ok()
            .and_then(|v| v.get("name").and_then(|n| n.as_str()).map(str::to_owned));
        let shown = named.clone().unwrap_or_else(|| format!("#{}", i + 1));
        let parsed: ExpectIn = match serde_json::from_str(e.get()) {
            Ok(p) => p,
            Err(err) => {
                problems.push(error(
                    line + err.line().saturating_sub(1),
                    Some(&shown),
                    crate::io::worded(&err, e.get()),
                ));
                continue;
            }
        };
        let Some(name) = parsed.name.clone().filter(|n| !n.trim().is_empty()) else {
            problems.push(error(
                line,
                Some(&shown),
                "give the expectation a \"name\": failures and reports name it".into(),
            ));
            continue;
        };
        if !names.insert(name.clone()) {
            problems.push(error(
                line,
                Some(&name),
                "another expectation of this test has the same name".into(),
            ));
            continue;
        }
        let agent = parsed.agent.clone();
        match expectation(parsed, raw.steps) {
            Ok(what) => expect.push(Expectation {
                name,
                line,
                agent,
                what,
            }),
            Err(m) => problems.push(error(line, Some(&name), m)),
        }
    }
    if !problems.is_empty() {
        return Err(TestFileErrors(problems));
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.trim_end_matches(".json").trim_end_matches(".test"))
        .unwrap_or("test")
        .to_owned();
    let target_line = line_of_key(
        text,
        if raw.scenario.is_some() {
            "scenario"
        } else {
            "tree"
        },
    );
    Ok(TestFile {
        path: path.to_owned(),
        name,
        description: raw.description,
        target,
        target_line,
        seeds,
        steps: raw.steps,
        dt,
        triggers,
        expect,
    })
}

/// The seeds given: one, a list, or a range `"A..B"` or `"A..=B"`.
fn seeds(given: Option<&serde_json::Value>) -> Result<Vec<u64>, String> {
    use serde_json::Value;
    let seed = |v: &Value| {
        v.as_u64()
            .ok_or_else(|| format!("seeds: {v} is not a seed; a seed is a whole number from 0"))
    };
    let list = match given {
        None => vec![0],
        Some(Value::String(text)) => parse_seed_range(text)?,
        Some(Value::Array(l)) if l.is_empty() => return Err("seeds: the list is empty".into()),
        Some(Value::Array(l)) => {
            if l.len() as u64 > MAX_SEEDS {
                return Err(format!(
                    "seeds: {} seeds; a test runs at most {MAX_SEEDS}",
                    l.len()
                ));
            }
            let list = l.iter().map(seed).collect::<Result<Vec<u64>, String>>()?;
            let mut seen = std::collections::HashSet::new();
            if let Some(twice) = list.iter().find(|s| !seen.insert(**s)) {
                return Err(format!("seeds: {twice} is given twice"));
            }
            list
        }
        Some(v) => vec![seed(v)?],
    };
    Ok(list)
}

/// The seeds of a range, `"A..B"` (A up to B − 1) or `"A..=B"`, or of one seed `"A"`; at
/// most [`MAX_SEEDS`].
pub fn parse_seed_range(text: &str) -> Result<Vec<u64>, String> {
    if let Ok(one) = text.trim().parse::<u64>() {
        return Ok(vec![one]);
    }
    let bad = || {
        format!(
            "seeds: '{text}' is not a range; write \"A..B\" (A up to B − 1) or \"A..=B\", e.g. \"0..20\""
        )
    };
    let (from, to, inclusive) = match text.split_once("..=") {
        Some((a, b)) => (a, b, true),
        None => {
            let (a, b) = text.split_once("..").ok_or_else(bad)?;
            (a, b, false)
        }
    };
    let from: u64 = from.trim().parse().map_err(|_| bad())?;
    let to: u64 = to.trim().parse().map_err(|_| bad())?;
    // Counted wide: "0..=18446744073709551615" is a range, only too long a one.
    let end = u128::from(to) + u128::from(inclusive);
    if end <= u128::from(from) {
        return Err(format!("seeds: the range '{text}' holds no seed"));
    }
    let count = end - u128::from(from);
    if count > u128::from(MAX_SEEDS) {
        return Err(format!(
            "seeds: '{text}' holds {count} seeds; at most {MAX_SEEDS} run at once"
        ));
    }
    Ok((from..).take(count as usize).collect())
}

/// The one kind key of an expectation, with the keys that only other kinds take refused.
fn expectation(e: ExpectIn, steps: u64) -> Result<Expect, String> {
    let node_events = [
        (NodeEvent::Enters, &e.enters),
        (NodeEvent::Succeeds, &e.succeeds),
        (NodeEvent::Fails, &e.fails),
        (NodeEvent::Exits, &e.exits),
        (NodeEvent::Aborts, &e.aborts),
    ];
    let present: Vec<&str> = KINDS
        .iter()
        .copied()
        .filter(|k| match *k {
            "completes" => e.completes.is_some(),
            "runs" => e.runs.is_some(),
            "near" => e.near.is_some(),
            "health_above" | "health_below" => false,
            "gone" => e.gone.is_some(),
            "context" => e.context.is_some(),
            event => node_events
                .iter()
                .any(|(n, v)| n.key() == event && v.is_some()),
        })
        .chain((e.health_above.is_some() || e.health_below.is_some()).then_some("health"))
        .collect();
    let kind = match present.as_slice() {
        [one] => *one,
        [] => {
            return Err(format!(
                "it names no kind of expectation; give one of {}",
                KINDS.join(", ")
            ));
        }
        many => {
            return Err(format!(
                "it names {} kinds of expectation ({}); give one (write two expectations)",
                many.len(),
                many.join(", ")
            ));
        }
    };
    // Keys each kind takes besides its own and `name` / `agent`.
    let takes: &[&str] = match kind {
        "completes" => &["at_least", "at_most"],
        "runs" => &["at_step"],
        "near" => &["within", "at_step"],
        "health" => &["health_above", "health_below", "at_step"],
        "gone" => &["at_step"],
        "context" => &["equals", "at_step"],
        _ => &["at_least", "at_most", "within_steps", "after"],
    };
    let given = [
        ("equals", e.equals.is_some()),
        ("within", e.within.is_some()),
        ("within_steps", e.within_steps.is_some()),
        ("after", e.after.is_some()),
        ("at_least", e.at_least.is_some()),
        ("at_most", e.at_most.is_some()),
        ("at_step", e.at_step.is_some()),
    ];
    if let Some((key, _)) = given.iter().find(|(k, g)| *g && !takes.contains(k)) {
        return Err(format!(
            "'{key}' does not apply to this '{kind}' expectation (it takes {})",
            takes
                .iter()
                .filter(|k| !k.starts_with("health"))
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(step) = e.at_step
        && (step == 0 || step > steps)
    {
        return Err(format!(
            "at_step {step} is not among the test's steps 1 to {steps}"
        ));
    }
    let count = || -> Result<Count, String> {
        let at_least = e
            .at_least
            .unwrap_or(if e.at_most.is_some() { 0 } else { 1 });
        if let Some(most) = e.at_most
            && most < at_least
        {
            return Err(format!(
                "at_least {at_least} and at_most {most}: no count is both"
            ));
        }
        Ok(Count {
            at_least,
            at_most: e.at_most,
        })
    };
    Ok(match kind {
        "completes" => {
            let success = match e.completes.as_deref() {
                Some("success") => true,
                Some("failure") => false,
                Some(other) => {
                    return Err(format!(
                        "completes '{other}': a run completes with \"success\" or \"failure\""
                    ));
                }
                None => true,
            };
            Expect::Completes {
                success,
                count: count()?,
            }
        }
        "runs" => Expect::Runs {
            node: e.runs.unwrap_or_default(),
            step: e
                .at_step
                .ok_or("give \"at_step\": the step at whose end the leaf runs")?,
        },
        "near" => {
            let place = match e.near {
                Some(serde_json::Value::String(name)) => Place::Entity(name),
                Some(serde_json::Value::Array(xy))
                    if xy.len() == 2
                        && xy.iter().all(|v| v.as_f64().is_some_and(f64::is_finite)) =>
                {
                    Place::Point([
                        xy[0].as_f64().unwrap_or_default(),
                        xy[1].as_f64().unwrap_or_default(),
                    ])
                }
                _ => {
                    return Err("near: give an entity's name or a point [x, y] in tiles".to_owned());
                }
            };
            let distance = e.within.ok_or("give \"within\": the distance in tiles")?;
            if !(distance.is_finite() && distance >= 0.0) {
                return Err(format!(
                    "within {}: give a distance of 0 tiles or more",
                    Num(distance)
                ));
            }
            Expect::Near {
                place,
                distance,
                step: e.at_step,
            }
        }
        "health" => {
            for v in [e.health_above, e.health_below].into_iter().flatten() {
                if !v.is_finite() {
                    return Err(format!("health {v}: give a number"));
                }
            }
            if let (Some(above), Some(below)) = (e.health_above, e.health_below)
                && above >= below
            {
                return Err(format!(
                    "health_above {} and health_below {}: no health is both",
                    Num(above),
                    Num(below)
                ));
            }
            Expect::Health {
                above: e.health_above,
                below: e.health_below,
                step: e.at_step,
            }
        }
        "gone" => Expect::Gone {
            entity: e.gone.unwrap_or_default(),
            step: e.at_step,
        },
        "context" => Expect::Context {
            key: e.context.unwrap_or_default(),
            equals: e
                .equals
                .ok_or("give \"equals\": the value the key must hold")?,
            step: e.at_step,
        },
        _ => {
            let (event, node) = node_events
                .into_iter()
                .find_map(|(n, v)| v.clone().map(|v| (n, v)))
                .ok_or("no node")?;
            match (e.within_steps, e.after) {
                (None, None) => Expect::Node {
                    event,
                    node,
                    count: count()?,
                },
                (Some(steps), Some(after)) => {
                    if e.at_least.is_some() || e.at_most.is_some() {
                        return Err(
                            "'within_steps' follows each 'after'; it takes no at_least or at_most"
                                .into(),
                        );
                    }
                    Expect::Within {
                        event,
                        node,
                        steps,
                        after: after_of(after)?,
                    }
                }
                (Some(_), None) => {
                    return Err("give \"after\" too: what starts the count of within_steps".into());
                }
                (None, Some(_)) => {
                    return Err(
                        "give \"within_steps\" too: how many steps after it the node may take"
                            .into(),
                    );
                }
            }
        }
    })
}

fn after_of(a: AfterIn) -> Result<After, String> {
    let mut given: Vec<After> = Vec::new();
    if let Some(t) = a.trigger {
        given.push(After::Trigger(t));
    }
    for (event, node) in [
        (NodeEvent::Enters, a.enters),
        (NodeEvent::Succeeds, a.succeeds),
        (NodeEvent::Fails, a.fails),
        (NodeEvent::Exits, a.exits),
        (NodeEvent::Aborts, a.aborts),
    ] {
        if let Some(node) = node {
            given.push(After::Node(event, node));
        }
    }
    match given.len() {
        1 => Ok(given.remove(0)),
        _ => Err("after: give one of trigger, enters, succeeds, fails, exits, aborts".into()),
    }
}
