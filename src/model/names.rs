//! Nodes named by a person rather than the editor (`--break NODE`, `--trigger STEP:ID`, a
//! behaviour test's expectations): by id, or by the title a designer gave the node, as the
//! editor shows it. A name that is neither is an error that says which ids and titles come
//! close. And how a message quotes what a file says: a long name cut ([`clipped`]), a
//! huge or tiny number in scientific notation ([`Num`]).

/// The most characters of a name (a kind, a node id, a path in a file) a message quotes.
pub const QUOTED_CHARS: usize = 80;

/// `name` as a message quotes it: whole when it has at most [`QUOTED_CHARS`] characters;
/// else cut there, with its length said (`FooFooFoo… (102400 bytes)`), so that a name of
/// megabytes makes a line, not megabytes of output.
pub fn clipped(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(QUOTED_CHARS) {
        None => std::borrow::Cow::Borrowed(name),
        Some((cut, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes)", &name[..cut], name.len()))
        }
    }
}

/// A number as a message shows it: as Rust writes it (with the precision asked, `{:.2}`),
/// but in scientific notation when it is huge (1e15 or more: `1e308`, not 309 digits) or,
/// with no precision asked, tiny (below 1e-6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Num(pub f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Num(x) = *self;
        let huge = x.is_finite() && x.abs() >= 1e15;
        let tiny = x != 0.0 && x.abs() < 1e-6 && f.precision().is_none();
        match f.precision() {
            Some(p) if huge => write!(f, "{x:.p$e}"),
            _ if huge || tiny => write!(f, "{x:e}"),
            Some(p) => write!(f, "{x:.p$}"),
            None => write!(f, "{x}"),
        }
    }
}

/// A node a run has: its trace id and its title (a SubTree's node's, in its asset).
#[derive(Clone, Debug, PartialEq)]
pub struct Named {
    /// The trace id (`SUBTREE/INNER` inside a SubTree).
    pub id: String,
    /// The title ("" when it has none).
    pub title: String,
}

/// A node as the event log names it: by its title, or where it has none by its kind and
/// id ("GoTo `go_food`").
pub fn spoken(kind: &str, id: &str, title: &str) -> String {
    if title.is_empty() {
        format!("{kind} `{id}`")
    } else {
        title.to_owned()
    }
}

/// `name` as the id of one of `nodes`: an id as given; else the one node whose title it is
/// (in any case), a tree's own node before a SubTree's (and an outer SubTree's before an
/// inner one's). Else why not (`what` says what was looked for: "node", "Interrupt"),
/// naming the ids and titles that come closest.
pub fn resolve(name: &str, nodes: &[Named], what: &str) -> Result<String, String> {
    if nodes.iter().any(|n| n.id == name) {
        return Ok(name.to_owned());
    }
    let depth = |n: &Named| n.id.matches('/').count();
    let titled: Vec<&Named> = nodes
        .iter()
        .filter(|n| !n.title.is_empty() && n.title.eq_ignore_ascii_case(name.trim()))
        .collect();
    let top = titled.iter().map(|n| depth(n)).min().unwrap_or(0);
    let titled: Vec<&Named> = titled.into_iter().filter(|n| depth(n) == top).collect();
    let mut ids: Vec<&str> = titled.iter().map(|n| n.id.as_str()).collect();
    ids.dedup();
    match ids.as_slice() {
        [id] => return Ok((*id).to_owned()),
        [] => {}
        many => {
            return Err(format!(
                "'{name}' is the title of {} {what}s ({}): give one's id",
                many.len(),
                many.join(", ")
            ));
        }
    }
    let near = nearest(name, nodes);
    Err(if near.is_empty() {
        format!("no {what} has the id or title '{name}'")
    } else {
        format!(
            "no {what} has the id or title '{name}'; did you mean {}?",
            near.join(" or ")
        )
    })
}

/// The ids and titles closest to `name` (at most three, best first), each id with the
/// title that matched it: `weaker` or `"Am I stronger?" (weaker)`.
fn nearest(name: &str, nodes: &[Named]) -> Vec<String> {
    let wanted = name.to_lowercase();
    let mut scored: Vec<(f64, String)> = Vec::new();
    for n in nodes {
        let id = n.id.to_lowercase();
        // A SubTree's inner node named by its own id: `to_b` for `patrol/to_b`.
        let inner = id.rsplit_once('/').is_some_and(|(_, last)| last == wanted);
        let by_id = if inner {
            0.95
        } else {
            strsim::jaro_winkler(&wanted, &id)
        };
        let by_title = strsim::jaro_winkler(&wanted, &n.title.to_lowercase());
        let contains = !n.title.is_empty() && n.title.to_lowercase().contains(&wanted);
        let (score, shown) = if by_title > by_id || contains {
            (
                by_title.max(if contains { 0.9 } else { 0.0 }),
                format!("\"{}\" ({})", n.title, n.id),
            )
        } else {
            (by_id, format!("'{}'", n.id))
        };
        if score >= 0.8 && !scored.iter().any(|(_, s)| *s == shown) {
            scored.push((score, shown));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().take(3).map(|(_, s)| s).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_tiny_numbers_are_shown_in_scientific_notation() {
        assert_eq!(Num(1e308).to_string(), "1e308");
        assert_eq!(Num(-1.5e20).to_string(), "-1.5e20");
        assert_eq!(Num(1e-300).to_string(), "1e-300");
        assert_eq!(format!("{:.2}", Num(1e300)), "1.00e300");
        assert_eq!(format!("{:.2}", Num(1e-300)), "0.00");
        assert_eq!(Num(0.1).to_string(), "0.1");
        assert_eq!(Num(123456.5).to_string(), "123456.5");
        assert_eq!(format!("{:.2}", Num(1.23456)), "1.23");
        assert_eq!(Num(0.0).to_string(), "0");
        assert_eq!(Num(f64::NAN).to_string(), "NaN");
    }

    #[test]
    fn a_long_name_is_quoted_cut_with_its_length() {
        assert_eq!(clipped("short_name"), "short_name");
        let exact = "é".repeat(QUOTED_CHARS);
        assert_eq!(clipped(&exact), exact);
        let long = "Kind".repeat(25_600);
        let quoted = clipped(&long);
        assert_eq!(quoted, format!("{}… (102400 bytes)", &long[..QUOTED_CHARS]));
    }

    /// Nodes of these ids and titles.
    fn named(nodes: &[(&str, &str)]) -> Vec<Named> {
        nodes
            .iter()
            .map(|(id, title)| Named {
                id: (*id).to_owned(),
                title: (*title).to_owned(),
            })
            .collect()
    }

    fn nodes() -> Vec<Named> {
        named(&[
            ("attack", "Attack a weaker droid"),
            ("hit", "Attack"),
            ("weaker", "Am I stronger?"),
            ("patrol/look_b", ""),
        ])
    }

    #[test]
    fn an_id_a_title_in_any_case_or_an_error_that_says_what_comes_close() {
        let n = nodes();
        assert_eq!(resolve("weaker", &n, "node"), Ok("weaker".into()));
        assert_eq!(
            resolve("patrol/look_b", &n, "node"),
            Ok("patrol/look_b".into())
        );
        assert_eq!(resolve("am i stronger?", &n, "node"), Ok("weaker".into()));
        assert_eq!(resolve("Attack", &n, "node"), Ok("hit".into()));
        let e = resolve("atack", &n, "node").err().unwrap_or_default();
        assert!(
            e.starts_with("no node has the id or title 'atack'; did you mean"),
            "{e}"
        );
        assert!(e.contains("'attack'"), "{e}");
        let e = resolve("stronger", &n, "node").err().unwrap_or_default();
        assert!(e.contains("\"Am I stronger?\" (weaker)"), "{e}");
        // A SubTree's inner node by its own id: its trace id is offered.
        let e = resolve("look_b", &n, "node").err().unwrap_or_default();
        assert!(e.contains("did you mean 'patrol/look_b'"), "{e}");
        assert_eq!(
            resolve("zzz", &n, "Interrupt"),
            Err("no Interrupt has the id or title 'zzz'".into())
        );
    }

    /// A title that a SubTree's asset also gives names the tree's own node; one that two
    /// SubTrees' nodes share names neither.
    #[test]
    fn a_title_names_the_trees_own_node_before_a_subtrees() {
        let n = named(&[
            ("look", "Look around"),
            ("a/look", "Look around"),
            ("b/look", "Look around"),
            ("a/b/go", "Go"),
            ("a/go", "Go"),
            ("b/go", "Go"),
            ("a/rest", "Rest"),
            ("b/rest", "Rest"),
        ]);
        assert_eq!(resolve("look around", &n, "node"), Ok("look".into()));
        let e = resolve("Go", &n, "node").err().unwrap_or_default();
        assert!(e.contains("title of 2 nodes (a/go, b/go)"), "{e}");
        let e = resolve("Rest", &n, "node").err().unwrap_or_default();
        assert!(e.contains("title of 2 nodes (a/rest, b/rest)"), "{e}");
    }
}
