//! Every stage an input can go through, where a panic is the only failure: shared by
//! the robustness tests (tests/robustness.rs) and the fuzz targets (fuzz/).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use arbor::io::{parse_tree, tree_to_string};
use arbor::model::{Catalog, NoAssets, Tree, validate};
use arbor::runtime::{Behaviours, Instance, Program};

/// A tree file's text: load, then everything [`tree`] does.
pub fn tree_text(text: &str) {
    if let Ok(tree) = parse_tree(text, Path::new("fuzz.json")) {
        self::tree(&tree);
    }
}

/// A BehaviorTree.CPP file's text (docs/BTCPP.md): read; written back into its document
/// (when its tree has a BehaviorTree.CPP form), which reads again to as many nodes, and
/// writes again to the same text; then everything [`tree`] does.
pub fn xml_text(text: &str) {
    use arbor::io::btcpp;
    let Ok(x) = btcpp::read(text) else {
        return;
    };
    if let Ok((written, source)) = btcpp::write(&x.tree, Some(&x.source)) {
        let back = btcpp::read(&written).expect("what Arbor writes reads back");
        assert_eq!(back.tree.nodes().len(), x.tree.nodes().len());
        let (again, _) = btcpp::write(&x.tree, Some(&source)).expect("it writes again");
        assert_eq!(
            again, written,
            "a second write of the same tree changes nothing"
        );
    }
    self::tree(&x.tree);
}

/// A loaded tree: validate, the canonical text (which loads back to the same tree and is
/// a fixed point), compile, and 20 steps with a trigger.
pub fn tree(tree: &Tree) {
    let catalog = Catalog::builtin();
    for d in &validate(tree, &catalog, &NoAssets) {
        assert!(!d.message.is_empty());
        let _ = d.to_string();
    }
    let canonical = tree_to_string(tree);
    let again = parse_tree(&canonical, Path::new("fuzz.json")).expect("canonical text reloads");
    assert_eq!(
        &again, tree,
        "the canonical text loads back to the same tree"
    );
    assert_eq!(
        tree_to_string(&again),
        canonical,
        "the canonical text is a fixed point"
    );
    let _ = tree.check_invariants(&catalog);
    if let Ok(program) = Program::compile(
        tree,
        &catalog,
        &NoAssets,
        &Behaviours::<()>::with_builtins(),
    ) {
        let mut instance = Instance::new(Arc::new(program), 1);
        instance.trigger("alarm", None);
        for _ in 0..20 {
            instance.step(0.1, &mut (), None);
        }
    }
}

/// A scenario's text, read as the file `path` (whose folder anchors its tree paths):
/// load, then 40 steps with a trigger, the drawing and the summary.
pub fn scenario_text(text: &str, path: &Path) {
    use arbor::world::{Simulation, parse_scenario};
    let loaded = parse_scenario(text, path)
        .map_err(|e| e.to_string())
        .and_then(|parsed| {
            Simulation::from_parsed(path, parsed, &Catalog::builtin(), 3, None)
                .map_err(|e| e.to_string())
        });
    match loaded {
        Ok(mut sim) => {
            sim.trigger(None, "receive_pass", Some("ball"));
            for _ in 0..40 {
                sim.step(0.25, None);
            }
            let _ = sim.render();
            for a in sim.summary() {
                let _ = a.to_string();
            }
        }
        Err(e) => assert!(!e.is_empty()),
    }
}

/// A node library file's text: read (a problem, never a panic), each problem said; a
/// library read without problems writes a canonical text that reads back to the same
/// library and is a fixed point; its kinds go into a catalog as a project would add them.
pub fn library_text(text: &str) {
    let path = Path::new("fuzz.nodes.json");
    let Ok((library, problems)) = arbor::io::parse_library(text, path) else {
        return;
    };
    for p in &problems {
        assert!(!p.message.is_empty());
        let _ = p.to_string();
    }
    for p in arbor::io::check_library(path, text, &Catalog::builtin()) {
        let _ = p.to_string();
    }
    if problems.is_empty()
        && let Ok(canonical) = library.to_text()
    {
        let (again, more) =
            arbor::io::parse_library(&canonical, path).expect("canonical text reloads");
        assert!(more.is_empty(), "{more:?}");
        assert_eq!(
            again, library,
            "the canonical text reads back to the same library"
        );
        assert_eq!(
            again.to_text().ok().as_deref(),
            Some(canonical.as_str()),
            "a fixed point"
        );
    }
}

/// A trace's bytes: read (an error naming the file, never a panic); a trace that reads is
/// written in both encodings, each reading back to the same trace, and is replayed to its
/// end and back to its start.
pub fn trace_bytes(data: &[u8]) {
    read_trace_bytes(data, Path::new("fuzz.jsonl"));
}

/// Any bytes after a binary trace's first bytes and version (bytes that start with them
/// already are taken as they are), through all of [`trace_bytes`].
pub fn binary_trace_bytes(data: &[u8]) {
    let magic = arbor::runtime::BINARY_TRACE_MAGIC;
    let bytes = if data.starts_with(&magic) {
        data.to_vec()
    } else {
        [&magic[..], &[1], data].concat()
    };
    read_trace_bytes(&bytes, Path::new("fuzz.arbtrace"));
}

/// What [`trace_bytes`] does, the trace named `path`.
fn read_trace_bytes(data: &[u8], path: &Path) {
    match arbor::io::parse_trace(data, path) {
        Err(e) => assert!(e.to_string().starts_with(&path.display().to_string())),
        Ok(trace) => {
            for encoding in [
                arbor::runtime::TraceEncoding::Binary,
                arbor::runtime::TraceEncoding::JsonLines,
            ] {
                let mut reader = arbor::io::TraceReader::new(data, path).expect("it read once");
                // JSON Lines refuses an event of a line past its limit; nothing else fails.
                let Ok((written, _)) =
                    arbor::io::write_trace(&mut reader, encoding, Vec::new(), path)
                else {
                    assert_eq!(encoding, arbor::runtime::TraceEncoding::JsonLines);
                    continue;
                };
                let back =
                    arbor::io::parse_trace(&written[..], path).expect("what is written reads");
                let unlined = |events: &[arbor::io::TracedEvent]| -> Vec<arbor::io::TracedEvent> {
                    events
                        .iter()
                        .map(|e| arbor::io::TracedEvent {
                            line: 0,
                            ..e.clone()
                        })
                        .collect()
                };
                assert_eq!(back.header, trace.header);
                assert_eq!(back.agents, trace.agents);
                assert_eq!(unlined(&back.events), unlined(&trace.events));
                assert_eq!(back.cut, None);
            }
            // A breakpoint on entering the first node the trace names.
            let breaks: Vec<arbor::debug::Breakpoint> = trace
                .events
                .iter()
                .find_map(|e| e.node.as_deref())
                .map(|node| arbor::debug::Breakpoint {
                    node: node.to_owned(),
                    on: arbor::debug::BreakOn::Enter,
                })
                .into_iter()
                .collect();
            let mut r = arbor::debug::Replay::new(trace);
            let last = r.last_step();
            r.seek(last);
            r.seek(0);
            let _ = r.markers();
            let _ = r.hit_markers(&breaks);
            let _ = r.continue_to_hit(&breaks);
        }
    }
}
