//! Tree files of hostile and large shapes, built at any size, for the cost-growth bench
//! (benches/shapes.rs), the size tests and `cargo run --release --example shape`.
//! Each generator returns the text of a tree file; `subtree_levels` writes a folder.
#![allow(dead_code, clippy::unwrap_used)]

use std::fmt::Write as _;
use std::path::Path;

/// The shapes, by the name the example and the bench use.
pub const SHAPES: &[&str] = &[
    "balanced",
    "ladder",
    "back_links",
    "wide",
    "keys",
    "long_kind",
    "loose",
];

/// The text of shape `name` with about `n` nodes (for `long_kind`, a kind name of `n`
/// bytes); `None` for an unknown name. `subtree_levels` is built by its own function.
pub fn shape(name: &str, n: usize) -> Option<String> {
    Some(match name {
        "balanced" => balanced(n),
        "ladder" => ladder(n),
        "back_links" => back_links(n),
        "wide" => wide(n),
        "keys" => keys(n),
        "long_kind" => long_kind(n),
        "loose" => loose(n),
        _ => return None,
    })
}

struct File {
    text: String,
    first: bool,
}

impl File {
    fn new() -> Self {
        Self {
            text: String::from("{\"format\": \"arbor.tree\", \"version\": 1, \"nodes\": [\n"),
            first: true,
        }
    }

    /// One node; `inputs` is the JSON of its inputs object's members, `fields` of its fields'.
    fn node(&mut self, id: &str, kind: &str, fields: &str, inputs: &str) {
        if !self.first {
            self.text.push_str(",\n");
        }
        self.first = false;
        let _ = write!(self.text, "{{\"id\": \"{id}\", \"kind\": \"{kind}\"");
        if !fields.is_empty() {
            let _ = write!(self.text, ", \"fields\": {{{fields}}}");
        }
        if !inputs.is_empty() {
            let _ = write!(self.text, ", \"inputs\": {{{inputs}}}");
        }
        self.text.push('}');
    }

    fn finish(mut self, positions: &[(String, usize)]) -> String {
        self.text.push_str("\n]");
        if !positions.is_empty() {
            self.text.push_str(", \"editor\": {\"nodes\": {\n");
            for (i, (id, k)) in positions.iter().enumerate() {
                if i > 0 {
                    self.text.push_str(",\n");
                }
                let _ = write!(
                    self.text,
                    "\"{id}\": {{\"position\": [{}.5, {}.0]}}",
                    k % 1000 * 40,
                    k / 1000 * 30
                );
            }
            self.text.push_str("\n}}");
        }
        self.text.push_str("}\n");
        self.text
    }
}

fn list(ids: impl Iterator<Item = String>) -> String {
    let ids: Vec<String> = ids.map(|id| format!("\"{id}\"")).collect();
    ids.join(", ")
}

/// A realistic large tree of about `n` nodes: a Selector of Sequences, each a condition,
/// MockActions with scripts and context keys, every node with an editor position.
pub fn balanced(n: usize) -> String {
    let per_branch = 10;
    let branches = (n / (per_branch + 1)).max(1);
    let mut f = File::new();
    let mut positions = Vec::new();
    let place = |id: &str, positions: &mut Vec<(String, usize)>| {
        let k = positions.len();
        positions.push((id.to_owned(), k));
    };
    f.node("root", "Root", "", "\"child\": [\"top\"]");
    place("root", &mut positions);
    f.node(
        "top",
        "Selector",
        "",
        &format!(
            "\"children\": [{}]",
            list((0..branches).map(|b| format!("b{b}")))
        ),
    );
    place("top", &mut positions);
    for b in 0..branches {
        let kids = list((0..per_branch).map(|k| format!("b{b}_{k}")));
        f.node(
            &format!("b{b}"),
            "Sequence",
            "",
            &format!("\"children\": [{kids}]"),
        );
        place(&format!("b{b}"), &mut positions);
        for k in 0..per_branch {
            let id = format!("b{b}_{k}");
            match k {
                0 => f.node(
                    &id,
                    "HasContext",
                    &format!("\"key\": \"seen{}\"", b % 50),
                    "",
                ),
                1 => f.node(&id, "MockAction", "\"script\": \"RRS\"", ""),
                2 => f.node(
                    &id,
                    "MockAction",
                    &format!(
                        "\"script\": \"RS\", \"out_context\": \"seen{}\", \"produces\": \"v\"",
                        b % 50
                    ),
                    "",
                ),
                _ => f.node(
                    &id,
                    "MockAction",
                    if k % 3 == 0 { "\"script\": \"RS\"" } else { "" },
                    "",
                ),
            }
            place(&id, &mut positions);
        }
    }
    f.finish(&positions)
}

/// Shared children: `n / 2` levels of two Sequences, each linking both nodes of the next
/// level; the last level is two leaves. A walk per path would take 2^(n/2) visits.
pub fn ladder(n: usize) -> String {
    let levels = (n / 2).max(1);
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"a0\"]");
    for l in 0..levels {
        for side in ["a", "b"] {
            let id = format!("{side}{l}");
            if l + 1 == levels {
                f.node(&id, "MockAction", "", "");
            } else {
                f.node(
                    &id,
                    "Sequence",
                    "",
                    &format!("\"children\": [\"a{0}\", \"b{0}\"]", l + 1),
                );
            }
        }
    }
    f.finish(&[])
}

/// A chain of `n` Sequences where each links the next and back to the chain's start:
/// `n` cycles through one node.
pub fn back_links(n: usize) -> String {
    let n = n.max(2);
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"c0\"]");
    for i in 0..n {
        let next = if i + 1 == n {
            String::new()
        } else {
            format!("\"c{}\", ", i + 1)
        };
        f.node(
            &format!("c{i}"),
            "Sequence",
            "",
            &format!("\"children\": [{next}\"c0\"]"),
        );
    }
    f.finish(&[])
}

/// One Sequence with `n` leaf children.
pub fn wide(n: usize) -> String {
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"all\"]");
    f.node(
        "all",
        "Sequence",
        "",
        &format!("\"children\": [{}]", list((0..n).map(|i| format!("l{i}")))),
    );
    for i in 0..n {
        f.node(&format!("l{i}"), "MockAction", "", "");
    }
    f.finish(&[])
}

/// `n` conditions, each reading its own context key.
pub fn keys(n: usize) -> String {
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"all\"]");
    f.node(
        "all",
        "Selector",
        "",
        &format!("\"children\": [{}]", list((0..n).map(|i| format!("h{i}")))),
    );
    for i in 0..n {
        f.node(
            &format!("h{i}"),
            "HasContext",
            &format!("\"key\": \"key{i}\""),
            "",
        );
    }
    f.finish(&[])
}

/// `n` actions linked to nothing: each is its own unreachable group.
pub fn loose(n: usize) -> String {
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"l0\"]");
    for i in 0..n {
        f.node(&format!("l{i}"), "MockAction", "", "");
    }
    f.finish(&[])
}

/// One node whose unknown kind name is `n` bytes long (the "did you mean" hint's worst case).
pub fn long_kind(n: usize) -> String {
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"odd\"]");
    let kind: String = "Sequence".chars().cycle().take(n.max(1)).collect();
    f.node("odd", &kind, "", "");
    f.finish(&[])
}

/// `levels` levels of SubTree assets in `dir`: main.json and level files, each level's
/// file holding `fan` SubTree nodes that all include the next level's one file. Returns
/// main.json's path. Read one asset per level, this is linear; walked per inclusion, it is
/// `fan^levels`.
pub fn subtree_levels(dir: &Path, levels: usize, fan: usize) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap_or_default();
    let write = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).unwrap_or_default();
    };
    for l in 0..=levels {
        let mut f = File::new();
        if l == levels {
            f.node("root", "Root", "", "\"child\": [\"leaf\"]");
            f.node("leaf", "MockAction", "", "");
        } else {
            f.node("root", "Root", "", "\"child\": [\"all\"]");
            f.node(
                "all",
                "Sequence",
                "",
                &format!(
                    "\"children\": [{}]",
                    list((0..fan).map(|i| format!("s{i}")))
                ),
            );
            for i in 0..fan {
                f.node(
                    &format!("s{i}"),
                    "SubTree",
                    &format!("\"asset\": \"level{}.json\"", l + 1),
                    "",
                );
            }
        }
        let name = if l == 0 {
            "main.json".to_owned()
        } else {
            format!("level{l}.json")
        };
        write(&name, f.finish(&[]));
    }
    dir.join("main.json")
}

/// `head`, then `item(k)` for each `k` below `n`, each after `sep` and apart by commas,
/// then `sep` and `tail`: a JSON list of `n` items written at once.
fn joined(head: &str, n: usize, sep: &str, item: impl Fn(usize) -> String, tail: &str) -> String {
    let mut text = String::from(head);
    for k in 0..n {
        if k > 0 {
            text.push(',');
        }
        text.push_str(sep);
        text.push_str(&item(k));
    }
    text.push_str(sep);
    text.push_str(tail);
    text
}

/// A node library of `n` kinds, each a leaf with a doc and two fields (an int with bounds
/// and an enum), written on one line when `one_line` (as a game sends it, or a tool
/// writes it), else one kind a line.
pub fn library(n: usize, one_line: bool) -> String {
    joined(
        "{\"format\": \"arbor.nodes\", \"version\": 1, \"library\": \"big\", \"kinds\": [",
        n,
        if one_line { "" } else { "\n" },
        |k| {
            format!(
                "{{\"kind\": \"Kind{k}\", \"category\": \"leaf\", \"group\": \"G{}\", \"doc\": \"Does thing {k}.\", \"fields\": [{{\"name\": \"count\", \"type\": \"int\", \"default\": 3, \"min\": 1, \"max\": 10}}, {{\"name\": \"mode\", \"type\": \"enum\", \"values\": [\"a\", \"b\"], \"default\": \"a\"}}]}}",
                k % 20
            )
        },
        "]}\n",
    )
}

/// A coverage file (`arbor coverage --json`) of `n` trees `other_K.json`, none of them the
/// tree a test shows, each with one node counted.
pub fn coverage_of_others(n: usize) -> String {
    joined(
        "{\"format\": \"arbor.coverage\", \"version\": 1, \"runs\": 1, \"steps\": 10, \"trees\": [",
        n,
        "\n",
        |k| {
            format!(
                "{{\"tree\": \"trees/other_{k}.json\", \"nodes\": [{{\"id\": \"root\", \"entered\": 1, \"succeeded\": 1, \"failed\": 0, \"aborted\": 0}}]}}"
            )
        },
        "]}\n",
    )
}

/// A node library of `n` kinds with nothing but a name and a category, on one line: the
/// most kinds a game's hello can hold.
pub fn small_library(n: usize) -> String {
    joined(
        "{\"format\":\"arbor.nodes\",\"version\":1,\"library\":\"big\",\"kinds\":[",
        n,
        "",
        |k| format!("{{\"kind\":\"Kind{k}\",\"category\":\"leaf\"}}"),
        "]}",
    )
}

/// A tree of a game whose library is [`small_library`]: one Sequence of `known` leaves of
/// its kinds (`Kind0`, `Kind1`, …), then `unknown` leaves of kinds it does not declare,
/// each a slip of one of its names (`Kidn0`, …): placeholders, each with a "did you mean".
pub fn game_tree(known: usize, unknown: usize) -> String {
    let mut f = File::new();
    f.node("root", "Root", "", "\"child\": [\"all\"]");
    let ids = (0..known)
        .map(|i| format!("k{i}"))
        .chain((0..unknown).map(|i| format!("u{i}")));
    f.node(
        "all",
        "Sequence",
        "",
        &format!("\"children\": [{}]", list(ids)),
    );
    for i in 0..known {
        f.node(&format!("k{i}"), &format!("Kind{i}"), "", "");
    }
    for i in 0..unknown {
        f.node(&format!("u{i}"), &format!("Kidn{i}"), "", "");
    }
    f.finish(&[])
}
