//! What the commands print reaches a terminal: nothing from a file may reach it raw. A
//! kind name, a doc, a node id or an expectation name holding an escape sequence
//! (`\e]0;PWNED\a` sets the window's title, `\e[2J` clears the screen) is shown with its
//! control characters written out (`\u001b]0;PWNED\u0007`). The binary writes standard
//! output and standard error through [`Escaped`], so every line is escaped, whichever
//! command printed it.

use std::borrow::Cow;
use std::io::Write;

/// Whether `c` is a character a terminal may act on rather than show: a C0 control but
/// the line feed and the tab, DEL, a C1 control, or a bidirectional embedding, override
/// or isolate (which reorder what is shown after it).
fn is_control(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each control character written out as `\uXXXX` (the JSON escape, so JSON
/// printed through it still reads, to the same value), the rest as it is.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_control(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A stream that escapes what is written to it as [`shown`] does before passing it on.
/// A character cut between two writes is kept until the next; a byte that is no part of
/// UTF-8 text is written out as `\xNN`.
pub struct Escaped<W: Write> {
    inner: W,
    /// The start of a character whose end has not come yet (at most 3 bytes).
    pending: Vec<u8>,
}

impl<W: Write> Escaped<W> {
    /// Escapes what is written before writing it to `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for Escaped<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let joined;
        let mut rest: &[u8] = if self.pending.is_empty() {
            buf
        } else {
            self.pending.extend_from_slice(buf);
            joined = std::mem::take(&mut self.pending);
            &joined
        };
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.inner.write_all(shown(text).as_bytes())?;
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // Checked by from_utf8 up to valid_up_to.
                    let text = std::str::from_utf8(good).unwrap_or_default();
                    self.inner.write_all(shown(text).as_bytes())?;
                    match e.error_len() {
                        // The text ends inside a character: its start waits for the rest.
                        None => {
                            self.pending = bad.to_vec();
                            break;
                        }
                        Some(n) => {
                            for b in &bad[..n] {
                                write!(self.inner, "\\x{b:02x}")?;
                            }
                            rest = &bad[n..];
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_out_and_text_is_kept() {
        assert_eq!(shown("plain ü → 木\tand\n"), "plain ü → 木\tand\n");
        assert_eq!(shown("E\u{1b}]0;PWNED\u{7}"), "E\\u001b]0;PWNED\\u0007");
        assert_eq!(shown("\u{1b}[2J\u{1b}[H"), "\\u001b[2J\\u001b[H");
        assert_eq!(shown("a\rb\u{7f}\u{9b}c"), "a\\u000db\\u007f\\u009bc");
        assert_eq!(shown("\u{202e}txt"), "\\u202etxt");
    }

    #[test]
    fn a_stream_escapes_across_writes_and_keeps_json_valid() {
        let mut out = Escaped::new(Vec::new());
        let text = "{\"id\":\"a\u{9b}2J\u{7f}\"}\n".as_bytes();
        // Every split, the C1 control's two bytes included.
        for cut in 0..text.len() {
            out.write_all(&text[..cut]).unwrap();
            out.write_all(&text[cut..]).unwrap();
        }
        let written = String::from_utf8(out.inner).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), text.len());
        for line in lines {
            assert_eq!(line, "{\"id\":\"a\\u009b2J\\u007f\"}");
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["id"], "a\u{9b}2J\u{7f}");
        }
        let mut out = Escaped::new(Vec::new());
        out.write_all(b"a\xffb\x9b").unwrap();
        assert_eq!(out.inner, b"a\\xffb\\x9b");
    }
}
