//! The XML of a BehaviorTree.CPP file as written, element for element: names, attributes in
//! their order, text and comments, and where each element starts (for errors). Read with
//! `roxmltree` (a document type declaration is refused, so no entity is ever expanded and
//! no external file is read); written back indented as the file was (4 spaces, as Groot
//! writes, for a new one).
//! Two documents are the same file for BehaviorTree.CPP when [`Element::canonical`] says
//! so: the same elements in the same order, the same attributes with the same values,
//! the same text and comments; whitespace between elements and attribute order aside.

use std::fmt::Write as _;

/// One element: its name, its attributes in the order written, what it holds, and its
/// place in the file (1-based line and column; 0 for one Arbor made).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Element {
    /// Its name.
    pub name: String,
    /// Its attributes, in the order written.
    pub attrs: Vec<(String, String)>,
    /// What it holds.
    pub items: Vec<Item>,
    /// Where it starts: 1-based line (0: made by Arbor).
    pub line: u32,
    /// Where it starts: 1-based column.
    pub column: u32,
}

/// What an element holds, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// An element.
    Element(Element),
    /// Text that is not only whitespace, as written (entities resolved).
    Text(String),
    /// A comment's text.
    Comment(String),
}

/// A whole file: the comments before and after the root element, and whether it began
/// with an XML declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// Whether it begins with `<?xml …?>`.
    pub declaration: bool,
    /// One level of indentation, as the file writes it (4 spaces where it shows none).
    pub indent: String,
    /// The comments before the root element.
    pub before: Vec<String>,
    /// The root element.
    pub root: Element,
    /// The comments after it.
    pub after: Vec<String>,
}

/// Why a text is not XML: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

/// The deepest nesting of elements a file may have: past any tree a program runs (Arbor
/// runs trees nested up to `model::MAX_DEPTH`, 256, levels; a file adds `<root>` and
/// `<BehaviorTree>`), and shallow enough that the parser's recursion stays well within a
/// thread's stack.
pub const MAX_NESTING: usize = 300;

/// The most elements, attributes, texts and comments a file may hold: far past any real
/// tree (a 100 MB file holds fewer), so that memory stays bounded by the file's size.
const NODES_LIMIT: u32 = 20_000_000;

impl Document {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Self, XmlError> {
        // roxmltree reads nested elements by recursion: a file nested too deep is refused
        // before it is handed over.
        too_deep(text)?;
        let options = roxmltree::ParsingOptions {
            allow_dtd: false,
            nodes_limit: NODES_LIMIT,
        };
        let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| match e {
            roxmltree::Error::DtdDetected => {
                let (line, column) = place(text, text.find("<!DOCTYPE").unwrap_or(0));
                XmlError {
                    line,
                    column,
                    message: "the file has a document type declaration (<!DOCTYPE …>), which BehaviorTree.CPP files never need; Arbor does not read one, so no entity is expanded and no other file is read".to_owned(),
                }
            }
            e => XmlError {
                line: e.pos().row,
                column: e.pos().col,
                message: e.to_string(),
            },
        })?;
        let root = doc.root_element();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut seen_root = false;
        for n in doc.root().children() {
            if n == root {
                seen_root = true;
            } else if n.is_comment() {
                let c = n.text().unwrap_or_default().to_owned();
                if seen_root {
                    after.push(c);
                } else {
                    before.push(c);
                }
            }
        }
        // The root's first child is the first line that starts with space and then `<`.
        let indent = text
            .lines()
            .find_map(|l| {
                let body = l.trim_start();
                (body.starts_with('<') && body.len() < l.len()).then(|| &l[..l.len() - body.len()])
            })
            .filter(|w| w.chars().all(|c| c == ' ' || c == '\t'))
            .unwrap_or("    ")
            .to_owned();
        Ok(Self {
            declaration: text.trim_start().starts_with("<?xml"),
            indent,
            before,
            root: element(text, root),
            after,
        })
    }

    /// The file's text.
    pub fn write(&self) -> String {
        let mut out = String::new();
        if self.declaration {
            out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        for c in &self.before {
            let _ = writeln!(out, "<!--{c}-->");
        }
        self.root.write(&mut out, &self.indent);
        for c in &self.after {
            let _ = writeln!(out, "<!--{c}-->");
        }
        out
    }

    /// Whether `other` is the same file for BehaviorTree.CPP (see the module's note).
    pub fn same_as(&self, other: &Document) -> bool {
        self.before == other.before
            && self.after == other.after
            && self.root.canonical() == other.root.canonical()
    }
}

/// Where `text` nests elements more than [`MAX_NESTING`] deep, if it does: a scan of its
/// tags (comments, CDATA, declarations and quoted attribute values skipped), linear in the
/// text. What is not well formed is left for the parser to say.
fn too_deep(text: &str) -> Result<(), XmlError> {
    let b = text.as_bytes();
    let (mut i, mut depth) = (0usize, 0usize);
    let skip_to = |from: usize, end: &str| {
        text[from..]
            .find(end)
            .map_or(b.len(), |at| from + at + end.len())
    };
    while let Some(at) = text[i..].find('<').map(|at| i + at) {
        let rest = &text[at..];
        // Each end is looked for after its opening (`<!-->` opens a comment, not one).
        if rest.starts_with("<!--") {
            i = skip_to(at + 4, "-->");
        } else if rest.starts_with("<![CDATA[") {
            i = skip_to(at + 9, "]]>");
        } else if rest.starts_with("<?") {
            i = skip_to(at + 2, "?>");
        } else if rest.starts_with("<!") {
            i = skip_to(at + 2, ">");
        } else if rest.starts_with("</") {
            depth = depth.saturating_sub(1);
            i = skip_to(at, ">");
        } else {
            // A start tag: to its `>`, past quoted values.
            let mut j = at + 1;
            let mut quote = None;
            while j < b.len() {
                match (quote, b[j]) {
                    (None, q @ (b'"' | b'\'')) => quote = Some(q),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if j > at + 1 && b.get(j - 1) != Some(&b'/') {
                depth += 1;
                if depth > MAX_NESTING {
                    let (line, column) = place(text, at);
                    return Err(XmlError {
                        line,
                        column,
                        message: format!(
                            "elements are nested more than {MAX_NESTING} deep here; no behaviour tree is"
                        ),
                    });
                }
            }
            i = j + 1;
        }
        if i >= b.len() {
            break;
        }
    }
    Ok(())
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn place(text: &str, at: usize) -> (u32, u32) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |n| n + 1)..]
        .chars()
        .count()
        + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// Line and column of places met in order through a text: each found from the last, so
/// that finding every element's is linear in the text.
struct Cursor<'t> {
    text: &'t str,
    at: usize,
    line: u32,
    column: u32,
}

impl Cursor<'_> {
    fn to(&mut self, byte: usize) -> (u32, u32) {
        if byte < self.at {
            return place(self.text, byte);
        }
        for c in self.text[self.at..byte].chars() {
            if c == '\n' {
                self.line += 1;
                self.column = 1;
            } else {
                self.column += 1;
            }
        }
        self.at = byte;
        (self.line, self.column)
    }
}

/// The element `n` and everything in it (walked with a stack).
fn element(text: &str, n: roxmltree::Node<'_, '_>) -> Element {
    let mut cursor = Cursor {
        text,
        at: 0,
        line: 1,
        column: 1,
    };
    let mut new = |n: roxmltree::Node<'_, '_>| {
        let (line, column) = cursor.to(n.range().start);
        Element {
            name: n.tag_name().name().to_owned(),
            attrs: n
                .attributes()
                .map(|a| (a.name().to_owned(), a.value().to_owned()))
                .collect(),
            items: Vec::new(),
            line,
            column,
        }
    };
    // Each open element with the children still to read.
    let mut stack: Vec<(Element, roxmltree::Children<'_, '_>)> = vec![(new(n), n.children())];
    while let Some((open, children)) = stack.last_mut() {
        match children.next() {
            Some(c) if c.is_element() => stack.push((new(c), c.children())),
            Some(c) if c.is_comment() => open
                .items
                .push(Item::Comment(c.text().unwrap_or_default().to_owned())),
            Some(c) => {
                let t = c.text().unwrap_or_default();
                if c.is_text() && !t.trim().is_empty() {
                    open.items.push(Item::Text(t.to_owned()));
                }
            }
            None => {
                if let Some((done, _)) = stack.pop() {
                    match stack.last_mut() {
                        Some((parent, _)) => parent.items.push(Item::Element(done)),
                        None => return done,
                    }
                }
            }
        }
    }
    new(n)
}

impl Element {
    /// A new element, with no attributes, holding nothing.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            attrs: Vec::new(),
            items: Vec::new(),
            line: 0,
            column: 0,
        }
    }

    /// The value of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets attribute `name` where it is, or adds it at the end.
    pub fn set_attr(&mut self, name: &str, value: String) {
        match self.attrs.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value,
            None => self.attrs.push((name.to_owned(), value)),
        }
    }

    /// Removes attribute `name`.
    pub fn remove_attr(&mut self, name: &str) {
        self.attrs.retain(|(n, _)| n != name);
    }

    /// The elements it holds, in order.
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.items.iter().filter_map(|i| match i {
            Item::Element(e) => Some(e),
            _ => None,
        })
    }

    /// Its text, indented by `indent` per level.
    fn write(&self, out: &mut String, indent: &str) {
        // An explicit stack of (element, depth, next item), so that depth costs no stack.
        let mut stack: Vec<(&Element, usize, usize)> = vec![(self, 0, 0)];
        while let Some((e, d, at)) = stack.pop() {
            let pad = indent.repeat(d);
            if at == 0 {
                let _ = write!(out, "{pad}<{}", e.name);
                for (k, v) in &e.attrs {
                    let _ = write!(out, " {k}=\"{}\"", escape(v, true));
                }
                if e.items.is_empty() {
                    out.push_str("/>\n");
                    continue;
                }
                out.push_str(">\n");
            }
            match e.items.get(at) {
                Some(item) => {
                    stack.push((e, d, at + 1));
                    match item {
                        Item::Element(c) => stack.push((c, d + 1, 0)),
                        Item::Text(t) => {
                            let _ = writeln!(out, "{pad}{indent}{}", escape(t.trim(), false));
                        }
                        Item::Comment(c) => {
                            let _ = writeln!(out, "{pad}{indent}<!--{c}-->");
                        }
                    }
                }
                None => {
                    let _ = writeln!(out, "{pad}</{}>", e.name);
                }
            }
        }
    }

    /// What BehaviorTree.CPP reads of it, as one comparable value: its name, its
    /// attributes sorted, its text trimmed, its comments, and the same of what it holds.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        let mut stack: Vec<(&Element, usize)> = vec![(self, 0)];
        while let Some((e, at)) = stack.pop() {
            if at == 0 {
                let mut attrs: Vec<&(String, String)> = e.attrs.iter().collect();
                attrs.sort();
                let _ = write!(out, "<{}", e.name);
                for (k, v) in attrs {
                    let _ = write!(out, " {k}={v:?}");
                }
                out.push('>');
            }
            match e.items.get(at) {
                Some(item) => {
                    stack.push((e, at + 1));
                    match item {
                        Item::Element(c) => stack.push((c, 0)),
                        Item::Text(t) => {
                            let _ = write!(out, "{:?}", t.trim());
                        }
                        Item::Comment(c) => {
                            let _ = write!(out, "<!--{c}-->");
                        }
                    }
                }
                None => {
                    let _ = write!(out, "</{}>", e.name);
                }
            }
        }
        out
    }
}

/// `text` written as XML: `&`, `<` and `>` escaped; in an attribute (`attribute`, which
/// Arbor writes between `"`) also quotes and line breaks and tabs (so that the value reads
/// back as it was), and not the apostrophes of a script's texts;
/// and the characters XML 1.0 cannot hold at all (most control characters) dropped. The
/// one escaping of every XML file Arbor writes.
pub fn escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\r' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Document;

    #[test]
    fn a_document_written_reads_back_the_same() {
        let text = r#"<?xml version="1.0"?>
<!-- a tree -->
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main" _description="a &quot;quoted&quot; &amp; &lt;odd&gt; one">
    <Sequence name="seq">
      <!-- first the check -->
      <IsDoorOpen/>
      <Script code="x := 1&#10;y := 2"/>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel><Action ID="Open"><input_port name="door">which door</input_port></Action></TreeNodesModel>
</root>
"#;
        let doc = Document::parse(text).unwrap();
        let written = doc.write();
        let back = Document::parse(&written).unwrap();
        assert!(doc.same_as(&back), "{written}");
        assert_eq!(back.write(), written, "writing is stable");
        assert_eq!(
            doc.root.elements().next().unwrap().attr("_description"),
            Some(r#"a "quoted" & <odd> one"#)
        );
    }

    #[test]
    fn a_doctype_is_refused_so_no_entity_is_expanded() {
        let laughs = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
<root>&lol2;</root>"#;
        let e = Document::parse(laughs).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.message.contains("document type declaration"), "{e:?}");
    }

    #[test]
    fn an_opening_that_looks_closed_does_not_hide_nesting_from_the_limit() {
        // `<!-->` opens a comment, and `-->` inside `<!--->` does not close it; the
        // comment then closes inside the CDATA's opening, and what follows is nested.
        for opening in ["<!-->", "<!--->"] {
            let text = format!("<root>{opening}<![CDATA[-->{}", "<a>".repeat(100_000));
            let e = Document::parse(&text).unwrap_err();
            assert!(e.message.contains("nested"), "{e:?}");
        }
    }

    #[test]
    fn a_file_nested_past_the_limit_is_refused_at_the_element() {
        let deep = |depth: usize| format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
        let doc = Document::parse(&deep(super::MAX_NESTING)).unwrap();
        assert!(doc.same_as(&Document::parse(&doc.write()).unwrap()));
        let e = Document::parse(&deep(100_000)).unwrap_err();
        assert_eq!((e.line, e.column), (1, 3 * super::MAX_NESTING as u32 + 1));
        assert!(e.message.contains("nested"), "{e:?}");
    }
}
