//! The header every Arbor file starts with, and the one rule that checks it: a JSON file
//! is an object whose `format` names what it is (`arbor.tree`, `arbor.scenario` …) and
//! whose `version` is a whole number from 1 to the newest this build reads. Every format
//! is listed here once, so a file of one kind opened as another is named for what it is.

/// One of Arbor's file formats: the name its header gives, what it is in words, and the
/// newest version this build reads (and the one it writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileFormat {
    /// The `format` header's text.
    pub name: &'static str,
    /// What a file of this format is, in words (`tree`, `node library`).
    pub what: &'static str,
    /// The newest version read, and the one written.
    pub newest: u64,
}

/// A tree (docs/FORMAT.md).
pub const TREE: FileFormat = FileFormat::new("arbor.tree", "tree", 1);
/// A scenario: a world and its agents (docs/FORMAT.md).
pub const SCENARIO: FileFormat = FileFormat::new("arbor.scenario", "scenario", 1);
/// A node library: a game's own kinds.
pub const LIBRARY: FileFormat = FileFormat::new("arbor.nodes", "node library", 1);
/// A project file: the libraries of a folder's trees.
pub const PROJECT: FileFormat = FileFormat::new("arbor.project", "project", 1);
/// A behaviour test.
pub const TEST: FileFormat = FileFormat::new("arbor.test", "behaviour test", 1);
/// Coverage counts (`arbor coverage --json`).
pub const COVERAGE: FileFormat = FileFormat::new("arbor.coverage", "coverage", 1);
/// The editor's settings.
pub const SETTINGS: FileFormat = FileFormat::new("arbor.settings", "settings", 1);
/// An editor's record of unsaved work.
pub const RECOVERY: FileFormat = FileFormat::new("arbor.recovery", "recovery", 1);
/// A listening editor's card (live attach).
pub const LIVE_CARD: FileFormat = FileFormat::new("arbor.live", "live attach card", 1);
/// A trace; its version is its header line's `arbor_trace`.
pub const TRACE: FileFormat =
    FileFormat::new("arbor.trace", "trace", crate::runtime::TRACE_VERSION as u64);
/// A binary trace; its version follows its magic bytes.
pub const BINARY_TRACE: FileFormat = FileFormat::new(
    "arbor.binary-trace",
    "binary trace",
    crate::runtime::BINARY_TRACE_VERSION,
);

/// Every format whose header has a `format` key, to name a file opened as another.
const NAMED: [FileFormat; 9] = [
    TREE, SCENARIO, LIBRARY, PROJECT, TEST, COVERAGE, SETTINGS, RECOVERY, LIVE_CARD,
];

impl FileFormat {
    const fn new(name: &'static str, what: &'static str, newest: u64) -> Self {
        Self { name, what, newest }
    }

    /// What is wrong with a header read from a file meant to be of this format, if
    /// anything. A key missing from a header that was not read whole (the text breaks off
    /// before it) is not a problem here: the text's own error says more.
    pub fn problem(&self, header: &Header) -> Option<HeaderProblem> {
        let of_format = |message| HeaderProblem {
            key: "format",
            message,
        };
        match header.format.as_deref() {
            Some(f) if f == self.name => {}
            Some(f) => {
                return Some(of_format(match NAMED.iter().find(|k| k.name == f) {
                    Some(other) => format!(
                        "this is a {} file (\"format\": \"{f}\"), not a {} file",
                        other.what, self.what
                    ),
                    None => format!(
                        "not an Arbor {} file: its \"format\" is \"{f}\", not \"{}\"",
                        self.what, self.name
                    ),
                }));
            }
            None if !header.whole => return None,
            None => {
                return Some(of_format(match &header.format_text {
                    Some(written) => format!(
                        "not an Arbor {} file: its \"format\" must be \"{}\", not {written}",
                        self.what, self.name
                    ),
                    None => format!(
                        "not an Arbor {} file: it has no \"format\": \"{}\" header",
                        self.what, self.name
                    ),
                }));
            }
        }
        let message = match (&header.version_text, header.whole) {
            (None, false) => None,
            (None, true) => Some(format!(
                "it has no \"version\" header (this build reads {} files of version {})",
                self.what,
                self.versions()
            )),
            (Some(written), _) => self.version_problem(header.version, written),
        };
        message.map(|message| HeaderProblem {
            key: "version",
            message,
        })
    }

    /// What is wrong with a version, if anything: `version` is it as a whole number, when
    /// it is one, and `written` as the file writes it.
    pub fn version_problem(&self, version: Option<u64>, written: &str) -> Option<String> {
        match version {
            Some(v) if (1..=self.newest).contains(&v) => None,
            Some(v) if v > self.newest => Some(format!(
                "written by a newer Arbor: {} file version {v}; this build reads version {}. Update Arbor to open it",
                self.what,
                self.versions()
            )),
            _ => Some(format!(
                "the \"version\" header must be {}, not {written}",
                self.versions()
            )),
        }
    }

    /// Checks the header of a JSON file's text; `Err` says what is wrong. Text that is no
    /// JSON object passes: the parse of its body says why.
    pub fn check(&self, text: &str) -> Result<(), HeaderProblem> {
        match read_header(text).and_then(|h| self.problem(&h)) {
            Some(problem) => Err(problem),
            None => Ok(()),
        }
    }

    /// The versions read, in words: `1`, or `1 to 3`.
    fn versions(&self) -> String {
        match self.newest {
            1 => "1".into(),
            n => format!("1 to {n}"),
        }
    }
}

/// What is wrong with a file's header: the key at fault and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderProblem {
    /// `format` or `version`.
    pub key: &'static str,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for HeaderProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The header a file's text declares, read without building the rest of the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The `format` text (`arbor.tree`, `arbor.scenario`), if it is text.
    pub format: Option<String>,
    /// The `version`, if it is a whole number.
    pub version: Option<u64>,
    /// The `format` as written, when it is there but is not text.
    format_text: Option<String>,
    /// The `version` as written, when it is there.
    version_text: Option<String>,
    /// Whether the header was read whole: both keys found, or the object read to its end.
    whole: bool,
}

/// The header of a JSON object's text, as far as it could be read; `None` when the text
/// is not a JSON object or has neither key before it breaks. Reading stops once `format`
/// and `version` are found (they come first in the canonical form), so a large file is
/// not scanned to the end.
pub fn read_header(text: &str) -> Option<Header> {
    use serde::de::{Error, IgnoredAny, MapAccess, Visitor};

    /// Fills `header`; stops the reading with an error once both keys are read.
    struct Look<'h> {
        header: &'h mut Header,
    }
    impl<'de> Visitor<'de> for Look<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let (mut format, mut version) = (false, false);
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "format" => {
                        let v: serde_json::Value = map.next_value()?;
                        match v.as_str() {
                            Some(f) => self.header.format = Some(f.to_owned()),
                            None => self.header.format_text = Some(v.to_string()),
                        }
                        format = true;
                    }
                    "version" => {
                        let v: serde_json::Value = map.next_value()?;
                        self.header.version = v.as_u64();
                        self.header.version_text = Some(v.to_string());
                        version = true;
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if format && version {
                    self.header.whole = true;
                    return Err(A::Error::custom("header read"));
                }
            }
            Ok(())
        }
    }

    let mut header = Header::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let look = Look {
        header: &mut header,
    };
    match serde::Deserializer::deserialize_map(&mut de, look) {
        Ok(()) => de.end().ok().map(|()| Header {
            whole: true,
            ..header
        }),
        // Stopped once read; or a body broken after the header's first key, which still
        // says what it is.
        Err(_) if header != Header::default() => Some(header),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(format: FileFormat, text: &str) -> String {
        format
            .check(text)
            .err()
            .map(|p| p.message)
            .unwrap_or_default()
    }

    #[test]
    fn a_version_is_a_whole_number_from_one_to_the_newest() {
        for format in NAMED {
            let head = |version: &str| format!(r#"{{"format": "{}", {version}}}"#, format.name);
            assert_eq!(format.check(&head(r#""version": 1"#)), Ok(()), "{format:?}");
            assert!(
                said(format, &head(r#""version": 0"#)).contains("the \"version\" header must be 1")
            );
            let newer = said(
                format,
                &head(&format!(r#""version": {}"#, format.newest + 1)),
            );
            assert!(newer.starts_with("written by a newer Arbor"), "{newer}");
            assert!(said(format, &head(r#""version": "1""#)).ends_with("not \"1\""));
            assert!(said(format, &head(r#""x": 1"#)).starts_with("it has no \"version\""));
        }
    }

    #[test]
    fn a_file_of_another_format_is_named_for_what_it_is() {
        let scenario = r#"{"format": "arbor.scenario", "version": 1}"#;
        assert_eq!(
            said(TREE, scenario),
            "this is a scenario file (\"format\": \"arbor.scenario\"), not a tree file"
        );
        assert!(said(TEST, r#"{"format": "x.y"}"#).starts_with("not an Arbor behaviour test"));
        assert!(said(TREE, r#"{"version": 1}"#).contains("no \"format\": \"arbor.tree\""));
        assert!(said(TREE, r#"{"format": 3, "version": 1}"#).ends_with("not 3"));
    }

    #[test]
    fn a_text_cut_off_before_a_key_leaves_the_missing_key_to_the_body() {
        assert_eq!(TREE.check(r#"{"format": "arbor.tree", "nodes": ["#), Ok(()));
        assert_eq!(TREE.check("not json"), Ok(()));
        // A wrong key before the cut is still said.
        assert!(
            TREE.check(r#"{"format": "arbor.tree", "version": 9, "#)
                .is_err()
        );
    }
}
