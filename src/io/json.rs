//! What a JSON file read with serde got wrong, in words: the field named and the value as
//! the file writes it (`"steps" must be a whole number ≥ 0, not 1.5`) rather than serde's
//! `invalid type: floating point `1.5`, expected u64`. One place for every file Arbor
//! reads with serde (behaviour tests, coverage files), so each says it the same way.

/// The message of `e`, an error serde gave reading `text`, without the "at line L column
/// C" it adds (the caller gives the line, of the file rather than of the part read); a
/// number of the wrong sort is said in words, with its field.
pub fn worded(e: &serde_json::Error, text: &str) -> String {
    let message = bare(e);
    let wanted = if message.ends_with("expected u64") {
        "a whole number ≥ 0"
    } else if message.ends_with("expected f64") {
        "a number"
    } else {
        return message;
    };
    let Some((key, value)) = offset(text, e.line(), e.column()).and_then(|at| field(text, at))
    else {
        return format!("the value must be {wanted}, not {}", what(&message));
    };
    let mut said = format!("\"{key}\" must be {wanted}, not {value}");
    // 1e2 or 100.0: a whole number written as a decimal one.
    if let Ok(n) = value.parse::<f64>()
        && wanted.starts_with("a whole")
        && n.fract() == 0.0
        && (0.0..=9_007_199_254_740_992.0).contains(&n)
    {
        said.push_str(&format!(" (write it {n})"));
    }
    said
}

/// serde's message without its place.
fn bare(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// serde's description of the value, when the field cannot be found: `a list`,
/// `floating point `1.5``.
fn what(message: &str) -> String {
    let found = message
        .split_once(": ")
        .map_or(message, |(_, rest)| rest)
        .split(", expected")
        .next()
        .unwrap_or_default();
    match found {
        "sequence" => "a list".into(),
        "map" => "an object".into(),
        other => other.into(),
    }
}

/// The byte offset of 1-based `line` and `column` (a column counts bytes) in `text`.
fn offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = match line {
        0 => return None,
        1 => 0,
        n => text.match_indices('\n').nth(n - 2)?.0 + 1,
    };
    let at = start + column;
    (at <= text.len() && text.is_char_boundary(at)).then_some(at)
}

/// The key and the value as written of the member of an object whose value ends at
/// `end` (where serde stops after reading it): `"steps": 1e2`. `None` when what ends
/// there is not a number, a string, `true`, `false` or `null` after a key.
fn field(text: &str, end: usize) -> Option<(&str, &str)> {
    let before = &text[..end];
    // The value: a string (back to its opening quote), or a run of number or word bytes.
    let start = if before.ends_with('"') {
        string_start(before)?
    } else {
        before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
            .map_or(0, |i| i + 1)
    };
    let value = &before[start..];
    if value.is_empty() {
        return None;
    }
    let head = before[..start].trim_end().strip_suffix(':')?.trim_end();
    let key_start = string_start(head)?;
    Some((&head[key_start + 1..head.len() - 1], value))
}

/// Where the JSON string that `text` ends with starts (its opening quote).
fn string_start(text: &str) -> Option<usize> {
    let inner = text.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut i = inner.len();
    while i > 0 {
        i -= 1;
        if bytes[i] == b'"' {
            // Escaped when an odd number of backslashes stand before it.
            let slashes = bytes[..i].iter().rev().take_while(|b| **b == b'\\').count();
            if slashes % 2 == 0 {
                return Some(i);
            }
        }
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct File {
        steps: u64,
        #[serde(default)]
        dt: Option<f64>,
    }

    fn said(text: &str) -> String {
        let e = serde_json::from_str::<File>(text).unwrap_err();
        worded(&e, text)
    }

    #[test]
    fn a_number_of_the_wrong_sort_is_said_with_its_field() {
        assert_eq!(
            said(r#"{"steps": 1.5}"#),
            "\"steps\" must be a whole number ≥ 0, not 1.5"
        );
        assert_eq!(
            said("{\n  \"dt\": 0.1,\n  \"steps\":\n    -1\n}"),
            "\"steps\" must be a whole number ≥ 0, not -1"
        );
        assert_eq!(
            said(r#"{"steps": 1e2}"#),
            "\"steps\" must be a whole number ≥ 0, not 1e2 (write it 100)"
        );
        assert_eq!(
            said(r#"{"steps": 18446744073709551616}"#),
            "\"steps\" must be a whole number ≥ 0, not 18446744073709551616"
        );
        assert_eq!(
            said(r#"{"steps": "a \" : b"}"#),
            "\"steps\" must be a whole number ≥ 0, not \"a \\\" : b\""
        );
        assert_eq!(
            said(r#"{"steps": 3, "dt": true}"#),
            "\"dt\" must be a number, not true"
        );
        assert_eq!(
            said(r#"{"steps": [1]}"#),
            "the value must be a whole number ≥ 0, not a list"
        );
        // Anything else is serde's.
        assert_eq!(said(r#"{"dt": 1}"#), "missing field `steps`");
    }
}
