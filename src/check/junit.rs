//! JUnit XML for `arbor test --junit FILE`, as CI servers read it: one `testsuite` per
//! test file, one `testcase` per seed, a `failure` per broken run naming the expectations
//! and the steps, an `error` when a test could not run, `skipped` for a run stopped by
//! Ctrl+C before its end. A small writer: the format is a handful of elements, and its
//! only subtlety, escaping, is here.

use std::fmt::Write;

/// One test file's results.
pub struct Suite {
    /// The test's name.
    pub name: String,
    /// The test file.
    pub file: String,
    /// Each seed's run: its case name, seconds, and what broke (`None`: it passed).
    pub cases: Vec<Case>,
}

/// One run.
pub struct Case {
    /// `seed N`.
    pub name: String,
    /// Seconds it took.
    pub seconds: f64,
    /// A failure: its one-line message and the full text.
    pub failure: Option<(String, String)>,
    /// An error (the test could not run): its message.
    pub error: Option<String>,
    /// Stopped before its end (Ctrl+C), nothing broken by then: why.
    pub skipped: Option<String>,
}

impl Case {
    /// A run that passed: nothing broke.
    pub fn passed(name: String, seconds: f64) -> Self {
        Self {
            name,
            seconds,
            failure: None,
            error: None,
            skipped: None,
        }
    }
}

/// The JUnit XML of `suites`.
pub fn write(suites: &[Suite]) -> String {
    let count = |f: fn(&Case) -> bool| -> usize {
        suites
            .iter()
            .map(|s| s.cases.iter().filter(|c| f(c)).count())
            .sum()
    };
    let tests = count(|_| true);
    let failures = count(|c| c.failure.is_some());
    let errors = count(|c| c.error.is_some());
    let skipped = count(|c| c.skipped.is_some());
    let time: f64 = suites
        .iter()
        .flat_map(|s| &s.cases)
        .map(|c| c.seconds)
        .sum();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        x,
        "<testsuites name=\"arbor test\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">"
    );
    for s in suites {
        let failed = s.cases.iter().filter(|c| c.failure.is_some()).count();
        let errored = s.cases.iter().filter(|c| c.error.is_some()).count();
        let stopped = s.cases.iter().filter(|c| c.skipped.is_some()).count();
        let time: f64 = s.cases.iter().map(|c| c.seconds).sum();
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"{errored}\" skipped=\"{stopped}\" time=\"{time:.3}\" file=\"{}\">",
            escape(&s.name),
            s.cases.len(),
            escape(&s.file)
        );
        for c in &s.cases {
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\"",
                escape(&c.name),
                escape(&s.name),
                c.seconds
            );
            match (&c.failure, &c.error, &c.skipped) {
                (None, None, None) => {
                    let _ = writeln!(x, "{open}/>");
                }
                (failure, error, skipped) => {
                    let _ = writeln!(x, "{open}>");
                    if let Some(message) = skipped {
                        let _ = writeln!(x, "      <skipped message=\"{}\"/>", escape(message));
                    }
                    if let Some((message, text)) = failure {
                        let _ = writeln!(
                            x,
                            "      <failure message=\"{}\" type=\"expectation\">{}</failure>",
                            escape(message),
                            escape_text(text)
                        );
                    }
                    if let Some(message) = error {
                        let _ = writeln!(
                            x,
                            "      <error message=\"{}\" type=\"unrunnable\">{}</error>",
                            escape(message),
                            escape_text(message)
                        );
                    }
                    let _ = writeln!(x, "    </testcase>");
                }
            }
        }
        let _ = writeln!(x, "  </testsuite>");
    }
    x.push_str("</testsuites>\n");
    x
}

/// The suites of a report [`write`] wrote (`text`, read from `path`), or what in it is
/// not such a report.
pub fn read(text: &str, path: &std::path::Path) -> Result<Vec<Suite>, String> {
    let at = |why: String| format!("{}: {why}", path.display());
    let doc = roxmltree::Document::parse(text).map_err(|e| at(format!("not XML: {e}")))?;
    let root = doc.root_element();
    if root.tag_name().name() != "testsuites" || root.attribute("name") != Some("arbor test") {
        return Err(at(format!(
            "not a JUnit report of arbor test: its root is <{}>, not <testsuites name=\"arbor test\">",
            root.tag_name().name()
        )));
    }
    let attr = |n: roxmltree::Node<'_, '_>, name: &str| n.attribute(name).unwrap_or("").to_owned();
    let mut suites = Vec::new();
    for s in root.children().filter(|n| n.has_tag_name("testsuite")) {
        let mut cases = Vec::new();
        for c in s.children().filter(|n| n.has_tag_name("testcase")) {
            let child = |tag: &str| c.children().find(|n| n.has_tag_name(tag));
            let seconds = attr(c, "time").parse::<f64>().unwrap_or(0.0);
            cases.push(Case {
                name: attr(c, "name"),
                seconds: if seconds.is_finite() { seconds } else { 0.0 },
                failure: child("failure")
                    .map(|f| (attr(f, "message"), f.text().unwrap_or("").to_owned())),
                error: child("error").map(|e| attr(e, "message")),
                skipped: child("skipped").map(|k| attr(k, "message")),
            });
        }
        suites.push(Suite {
            name: attr(s, "name"),
            file: attr(s, "file"),
            cases,
        });
    }
    Ok(suites)
}

/// The reports of the shards of one run (each as [`read`], with where it came from) as
/// one: the tests in file order, the runs of each in seed order, as one run lists them.
/// Refused when a run is in two reports (they overlap: not shards of one run).
pub fn merge(reports: Vec<(String, Vec<Suite>)>) -> Result<Vec<Suite>, String> {
    let mut merged: Vec<Suite> = Vec::new();
    let mut from: std::collections::HashMap<(String, String, String), String> =
        std::collections::HashMap::new();
    for (origin, suites) in reports {
        for suite in suites {
            let key = (suite.name.clone(), suite.file.clone());
            for c in &suite.cases {
                let run = (key.0.clone(), key.1.clone(), c.name.clone());
                if let Some(first) = from.insert(run, origin.clone()) {
                    return Err(format!(
                        "{} {} is in both {first} and {origin}: the reports overlap, so they are not the shards of one run",
                        suite.name, c.name
                    ));
                }
            }
            match merged
                .iter_mut()
                .find(|m| (&m.name, &m.file) == (&key.0, &key.1))
            {
                Some(m) => m.cases.extend(suite.cases),
                None => merged.push(suite),
            }
        }
    }
    // A test's runs in seed order ("seed 3" before "seed 12"), as one run lists them.
    let seed = |c: &Case| {
        c.name
            .strip_prefix("seed ")
            .and_then(|n| n.parse::<u64>().ok())
    };
    for m in &mut merged {
        m.cases.sort_by_key(|c| seed(c));
    }
    // As the files are found: by path, part by part (a folder before a file named after it).
    merged.sort_by(|a, b| std::path::Path::new(&a.file).cmp(std::path::Path::new(&b.file)));
    Ok(merged)
}

/// `text` for an XML attribute ([`crate::io::btcpp::escape`]).
fn escape(text: &str) -> String {
    crate::io::btcpp::escape(text, true)
}

/// `text` for an element's content: its quotes and line breaks as they are.
fn escape_text(text: &str) -> String {
    crate::io::btcpp::escape(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_the_xml_well_formed() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; 'd'&gt;"
        );
    }
}
