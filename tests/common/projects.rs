//! A project of many trees and keys, as a game's might be: to rename a key of it in every
//! tree (tests/edits.rs) and to time that (benches/rename.rs).

use std::fmt::Write as _;
use std::path::Path;

/// Writes into `dir` a project file declaring `keys` keys (`k0` …, entities) and `trees`
/// tree files (`trees/t0.json` …, ten under each folder `trees/gN/`), each declaring no
/// keys of its own and having 20 leaves: ten that write `k0` and keys of its own part of
/// the list, ten that read them.
pub fn write_project(dir: &Path, trees: usize, keys: usize) {
    let mut project =
        String::from(r#"{"format": "arbor.project", "version": 1, "nodes": [], "keys": ["#);
    for k in 0..keys {
        if k > 0 {
            project.push(',');
        }
        let _ = write!(project, r#"{{"name": "k{k}", "type": "entity"}}"#);
    }
    project.push_str("]}\n");
    std::fs::write(dir.join("arbor.project.json"), project).unwrap();
    for t in 0..trees {
        let folder = dir.join(format!("trees/g{}", t / 10));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("t{t}.json")), tree_text(t, keys)).unwrap();
    }
}

/// Tree `t` of [`write_project`].
fn tree_text(t: usize, keys: usize) -> String {
    let mut nodes = String::from(
        r#"{"id": "root", "kind": "Root", "inputs": {"child": ["seq"]}},
    {"id": "seq", "kind": "Sequence", "inputs": {"children": ["#,
    );
    let ids: Vec<String> = (0..20).map(|i| format!("\"n{i}\"")).collect();
    nodes.push_str(&ids.join(", "));
    nodes.push_str("]}}");
    for i in 0..20 {
        let key = if i % 5 == 0 {
            0
        } else {
            (t * 7 + i) % keys.max(1)
        };
        let node = if i < 10 {
            format!(
                r#"{{"id": "n{i}", "kind": "MockAction", "fields": {{"script": "S", "out_context": "k{key}"}}}}"#
            )
        } else {
            format!(r#"{{"id": "n{i}", "kind": "HasContext", "fields": {{"key": "k{key}"}}}}"#)
        };
        let _ = write!(nodes, ",\n    {node}");
    }
    format!(
        "{{\"format\": \"arbor.tree\", \"version\": 1, \"keys\": [],\n  \"nodes\": [\n    {nodes}\n  ]}}\n"
    )
}
