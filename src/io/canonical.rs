//! Canonical JSON text: keys in the order given, two-space indent, short arrays of
//! scalars on one line, a final newline. Stable output keeps git diffs small.

use serde_json::Value;

const LINE: usize = 100;

/// Renders a JSON value canonically.
pub fn to_canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value, 0);
    out.push('\n');
    out
}

fn scalar(v: &Value) -> String {
    // Rendering a scalar JSON value cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

fn write(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Object(map) => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                pad(out, indent + 2);
                out.push_str(&scalar(&Value::String(k.clone())));
                out.push_str(": ");
                write(out, v, indent + 2);
                if i + 1 < map.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            pad(out, indent);
            out.push('}');
        }
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Array(items) => {
            let inline = items
                .iter()
                .all(|v| !v.is_object() && !v.is_array())
                .then(|| {
                    let parts: Vec<String> = items.iter().map(scalar).collect();
                    format!("[{}]", parts.join(", "))
                });
            match inline {
                Some(s) if indent + s.len() <= LINE => out.push_str(&s),
                _ => {
                    out.push_str("[\n");
                    for (i, v) in items.iter().enumerate() {
                        pad(out, indent + 2);
                        write(out, v, indent + 2);
                        if i + 1 < items.len() {
                            out.push(',');
                        }
                        out.push('\n');
                    }
                    pad(out, indent);
                    out.push(']');
                }
            }
        }
        v => out.push_str(&scalar(v)),
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}
