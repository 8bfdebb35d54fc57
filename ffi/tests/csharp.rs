//! `ffi/bindings/Arbor.cs`, the P/Invoke declarations a Unity (C#) game uses, is made from
//! include/arbor.h here: every constant, struct, callback and function of the header,
//! each C type by one rule. The test fails while the committed file differs, so the C#
//! cannot drift from the header (`ARBOR_BLESS=1 cargo test -p arbor-ffi --test csharp`
//! writes it).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fmt::Write;
use std::path::Path;

mod common;

/// The C# of a C type `ty` of a parameter named `name` (an out-parameter by the name
/// `out`), or of a field or return value (`name` empty).
fn cs_type(ty: &str, name: &str, handles: &[String]) -> String {
    let ty = ty.trim().replace("struct ", "");
    let plain = |t: &str| -> Option<&'static str> {
        Some(match t {
            "int32_t" => "int",
            "uint32_t" => "uint",
            "int64_t" => "long",
            "uint64_t" => "ulong",
            "size_t" => "UIntPtr",
            "double" => "double",
            "bool" => "[MarshalAs(UnmanagedType.I1)] bool",
            "void *" | "void*" => "IntPtr",
            _ => return None,
        })
    };
    if let Some(p) = plain(&ty) {
        return p.to_owned();
    }
    if handles.contains(&ty) {
        return "ulong".to_owned();
    }
    match ty.as_str() {
        "const char *" if name.is_empty() => "IntPtr".to_owned(),
        "const char *" => "[MarshalAs(UnmanagedType.LPUTF8Str)] string".to_owned(),
        "const ArborNode *" | "const void *" => "IntPtr".to_owned(),
        "const ArborValue *" => "IntPtr".to_owned(),
        "void *const *" => "IntPtr[]".to_owned(),
        t if t.starts_with("const ") && t.ends_with(" *") => {
            let inner = &t["const ".len()..t.len() - 2];
            if handles.iter().any(|h| h == inner) {
                "ulong[]".to_owned()
            } else {
                format!("in {inner}")
            }
        }
        t if t.ends_with(" *") => {
            let inner = &t[..t.len() - 2];
            let inner = plain(inner)
                .map(str::to_owned)
                .or_else(|| {
                    handles
                        .iter()
                        .any(|h| h == inner)
                        .then(|| "ulong".to_owned())
                })
                .unwrap_or_else(|| inner.to_owned());
            format!("out {inner}")
        }
        t => t.to_owned(),
    }
}

/// A parameter's name in C#: a keyword is escaped (`out` → `@out`).
fn cs_name(name: &str) -> String {
    const KEYWORDS: [&str; 12] = [
        "out", "in", "ref", "params", "string", "object", "base", "event", "checked", "fixed",
        "lock", "operator",
    ];
    if KEYWORDS.contains(&name) {
        format!("@{name}")
    } else {
        name.to_owned()
    }
}

/// `TYPE NAME` split at the name (`const char *path` → `const char *`, `path`).
fn split(param: &str) -> (String, String) {
    let param = param.trim();
    let at = param.rfind([' ', '*']).expect("a parameter has a type");
    let (ty, name) = param.split_at(at + 1);
    (ty.trim().to_owned(), name.to_owned())
}

fn params(list: &str, handles: &[String]) -> String {
    if list.trim() == "void" {
        return String::new();
    }
    list.split(',')
        .map(|p| {
            let (ty, name) = split(p);
            let ty = if ty.ends_with('*') && !ty.ends_with(" *") {
                format!("{} *", ty.trim_end_matches('*').trim())
            } else {
                ty
            };
            format!("{} {}", cs_type(&ty, &name, handles), cs_name(&name))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The C# declarations of header `h`.
fn generate(h: &str) -> String {
    // Declarations on one line each: cbindgen breaks long parameter lists.
    let mut joined = String::new();
    for line in h.lines() {
        let line = line.trim_end();
        if line.trim_start().starts_with("//")
            || line.starts_with('#')
            || line.starts_with(" *")
            || line.starts_with("/*")
        {
            joined.push('\n');
            joined.push_str(line);
            joined.push('\n');
        } else {
            joined.push(' ');
            joined.push_str(line.trim());
            if line.ends_with(';') || line.ends_with('{') || line.ends_with('}') {
                joined.push('\n');
            }
        }
    }
    let handles: Vec<String> = joined
        .lines()
        .filter_map(|l| l.trim().strip_prefix("typedef uint64_t "))
        .map(|l| l.trim_end_matches(';').to_owned())
        .collect();
    let mut out = String::from(
        "// Generated from ffi/include/arbor.h by ffi/tests/csharp.rs: do not edit.\n\
         // P/Invoke declarations of Arbor's C ABI for C# (Unity, .NET). Handles are ulong,\n\
         // codes int; arbor_last_error() gives a pointer: Marshal.PtrToStringUTF8 reads it.\n\
         // Keep each callback delegate alive (a static field) while trees use its kind.\n\n\
         using System;\nusing System.Runtime.InteropServices;\n\nnamespace Arbor\n{\n",
    );
    // Structs.
    let mut rest = joined.as_str();
    while let Some(at) = rest.find("typedef struct ") {
        let body_start = rest[at..].find('{').unwrap() + at;
        let name = rest[at + "typedef struct ".len()..body_start]
            .trim()
            .to_owned();
        let body_end = rest[body_start..].find('}').unwrap() + body_start;
        writeln!(
            out,
            "    [StructLayout(LayoutKind.Sequential)]\n    public struct {name}\n    {{"
        )
        .unwrap();
        for field in rest[body_start + 1..body_end].split(';') {
            let Some(field) = field.lines().map(str::trim).rfind(|l| !l.is_empty()) else {
                continue;
            };
            if field.starts_with("//") {
                continue;
            }
            if let Some(open) = field.find('[') {
                let (decl, size) = field.split_at(open);
                let (ty, name) = split(decl);
                let n = size.trim_matches(|c| c == '[' || c == ']');
                writeln!(
                    out,
                    "        [MarshalAs(UnmanagedType.ByValArray, SizeConst = {n})] public {}[] {name};",
                    cs_type(&ty, "", &handles)
                )
                .unwrap();
            } else {
                let (ty, name) = split(field);
                let ty = if ty.ends_with('*') && !ty.ends_with(" *") {
                    format!("{} *", ty.trim_end_matches('*').trim())
                } else {
                    ty
                };
                let cs = cs_type(&ty, "", &handles);
                let cs = if ty == "const char *" {
                    "IntPtr".to_owned()
                } else {
                    cs
                };
                let cs = if cs.starts_with("out ") {
                    "IntPtr".to_owned()
                } else {
                    cs
                };
                let line = match cs.strip_prefix("[MarshalAs(UnmanagedType.I1)] ") {
                    Some(t) => format!("[MarshalAs(UnmanagedType.I1)] public {t}"),
                    None => format!("public {cs}"),
                };
                writeln!(out, "        {line} {};", cs_name(name.trim())).unwrap();
            }
        }
        out.push_str("    }\n\n");
        rest = &rest[body_end..];
    }
    // Callbacks.
    for line in joined.lines().map(str::trim) {
        let Some(decl) = line.strip_prefix("typedef ") else {
            continue;
        };
        let Some(open) = decl.find("(*") else {
            continue;
        };
        let ret =
            cs_type(&decl[..open], "", &handles).replace("[MarshalAs(UnmanagedType.I1)] ", "");
        let close = decl[open..].find(')').unwrap() + open;
        let name = &decl[open + 2..close];
        let list = &decl[close + 2..decl.len() - 2];
        writeln!(
            out,
            "    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]\n    public delegate {} {name}({});\n",
            if ret == "void" { "void" } else { &ret },
            params(list, &handles)
        )
        .unwrap();
    }
    out.push_str("    public static class Native\n    {\n        public const string Library = \"arbor_ffi\";\n\n");
    for line in joined.lines().map(str::trim) {
        if let Some(def) = line.strip_prefix("#define ARBOR_")
            && let Some((name, value)) = def.split_once(' ')
            && value.chars().all(|c| c.is_ascii_digit())
        {
            writeln!(out, "        public const int ARBOR_{name} = {value};").unwrap();
        }
    }
    out.push('\n');
    for line in joined.lines().map(str::trim) {
        let Some(open) = line.find("arbor_") else {
            continue;
        };
        if line.starts_with("typedef")
            || line.starts_with('#')
            || line.starts_with("//")
            || !line.ends_with(");")
        {
            continue;
        }
        let ret = &line[..open];
        let paren = line.find('(').unwrap();
        let name = &line[open..paren];
        let list = &line[paren + 1..line.len() - 2];
        let ret = if ret.trim() == "void" {
            "void".to_owned()
        } else {
            cs_type(ret, "", &handles)
        };
        writeln!(
            out,
            "        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]\n        public static extern {ret} {name}({});\n",
            params(list, &handles)
        )
        .unwrap();
    }
    out.push_str("    }\n}\n");
    out
}

#[test]
fn the_csharp_declarations_are_made_from_the_header() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(crate_dir.join("include/arbor.h")).unwrap();
    let made = generate(&header);
    // Every function and constant of the header is declared.
    let functions = header.matches("\nint32_t arbor_").count()
        + header.matches("\nuint32_t arbor_").count()
        + header.matches("\nconst char *arbor_").count();
    assert_eq!(made.matches("static extern").count(), functions, "{made}");
    assert_eq!(
        made.matches("public const int ARBOR_").count(),
        header.matches("\n#define ARBOR_").count() - 1, // (the include guard)
    );
    common::blessed(&crate_dir.join("bindings/Arbor.cs"), &made, "csharp");
}
