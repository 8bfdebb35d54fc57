//! BehaviorTree.CPP's port types as Arbor's field types, and a port's text as a value of
//! its field's type, read as BehaviorTree.CPP's `convertFromString` reads it
//! (docs/BTCPP.md, "Port types").

use crate::model::{Catalog, FieldType, Tree, Value};

/// The field type and unit of a port of BehaviorTree.CPP type `name`, as a model's `type`
/// writes it (`double`, `std::string`, `unsigned int`, Nav2's `uint16`): a bool, a whole
/// number in the C++ type's range, a number, a node status (one of its words), else text.
pub fn field_type(name: &str) -> (FieldType, &'static str) {
    let words: Vec<&str> = name.split_whitespace().collect();
    let name = words.join(" ");
    let name = name.strip_prefix("std::").unwrap_or(&name);
    let int = |min: i64, max: i64| (FieldType::Int { min, max }, "");
    match name {
        "bool" => (FieldType::Bool, ""),
        "double" | "float" | "long double" => (
            FieldType::Float {
                min: -f64::MAX,
                min_exclusive: false,
                max: f64::MAX,
            },
            "",
        ),
        "int8" | "int8_t" | "signed char" => int(i8::MIN.into(), i8::MAX.into()),
        "uint8" | "uint8_t" | "unsigned char" => int(0, u8::MAX.into()),
        "int16" | "int16_t" | "short" | "short int" => int(i16::MIN.into(), i16::MAX.into()),
        "uint16" | "uint16_t" | "unsigned short" | "unsigned short int" => int(0, u16::MAX.into()),
        "int" | "int32" | "int32_t" | "signed" | "signed int" => {
            int(i32::MIN.into(), i32::MAX.into())
        }
        "unsigned" | "unsigned int" | "uint32" | "uint32_t" => int(0, u32::MAX.into()),
        "long" | "long int" | "long long" | "long long int" | "int64" | "int64_t" | "ssize_t" => {
            int(i64::MIN, i64::MAX)
        }
        // (Arbor's whole numbers stop at i64's largest.)
        "unsigned long" | "unsigned long int" | "unsigned long long" | "uint64" | "uint64_t"
        | "size_t" => int(0, i64::MAX),
        // Nav2's durations: a whole number of milliseconds.
        "chrono::milliseconds" => (
            FieldType::Int {
                min: i64::MIN,
                max: i64::MAX,
            },
            "ms",
        ),
        "BT::NodeStatus" | "NodeStatus" => (
            FieldType::Enum(
                ["IDLE", "RUNNING", "SUCCESS", "FAILURE", "SKIPPED"]
                    .map(str::to_owned)
                    .to_vec(),
            ),
            "",
        ),
        _ => (FieldType::Text, ""),
    }
}

/// Whether attribute text `text` says value `value` of a bool, whole-number or number
/// field: as [`FieldType::value_from`] reads it in that value's type (so `1.50` still says 1.5, and is
/// written back as written).
pub(super) fn says(text: &str, value: &Value) -> bool {
    let ty = match value {
        Value::Bool(_) => FieldType::Bool,
        Value::Int(_) => FieldType::Int {
            min: i64::MIN,
            max: i64::MAX,
        },
        Value::Float(_) => FieldType::Float {
            min: -f64::MAX,
            min_exclusive: false,
            max: f64::MAX,
        },
        Value::Text(_) | Value::Key(_) => return false,
    };
    ty.value_from(text).is_some_and(|v| v == *value)
}

/// Gives each field of `tree` (read from a BehaviorTree.CPP file, where every value is
/// text) that its kind in `catalog` types as a bool, a whole number or a number the value
/// its text says ([`FieldType::value_from`]); text that says none stays text, for validation to name.
/// A bool or a number in a field that now takes text (its kind's library changed) is made
/// its text again. The count of fields changed.
pub fn fit(tree: &mut Tree, catalog: &Catalog) -> usize {
    tree.refit_fields(|kind, field, value| {
        let spec = catalog.kind(kind)?.field(field)?;
        match value {
            Value::Text(text) => spec.ty.value_from(text),
            Value::Bool(_) | Value::Int(_) | Value::Float(_) if spec.ty == FieldType::Text => {
                Some(Value::Text(super::kinds::plain(value)))
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_types_read_as_behaviortree_cpp_names_them() {
        assert_eq!(field_type("double").0.describe(), "a number");
        assert_eq!(field_type("bool").0, FieldType::Bool);
        assert_eq!(
            field_type("unsigned int").0,
            FieldType::Int {
                min: 0,
                max: u32::MAX.into()
            }
        );
        assert_eq!(
            field_type("uint16").0,
            FieldType::Int { min: 0, max: 65535 }
        );
        assert_eq!(field_type("std::chrono::milliseconds").1, "ms");
        assert_eq!(field_type("chrono::milliseconds").1, "ms");
        assert_eq!(field_type("std::string").0, FieldType::Text);
        assert_eq!(
            field_type("geometry_msgs::msg::PoseStamped").0,
            FieldType::Text
        );
        assert!(matches!(field_type("BT::NodeStatus").0, FieldType::Enum(_)));
    }

    #[test]
    fn text_reads_as_behaviortree_cpp_converts_it() {
        let int = field_type("int").0;
        let float = field_type("double").0;
        assert_eq!(FieldType::Bool.value_from("TRUE"), Some(Value::Bool(true)));
        assert_eq!(FieldType::Bool.value_from("0"), Some(Value::Bool(false)));
        assert_eq!(FieldType::Bool.value_from("yes"), None);
        assert_eq!(FieldType::Bool.value_from(" true"), None);
        assert_eq!(int.value_from("-12"), Some(Value::Int(-12)));
        assert_eq!(int.value_from("12abc"), None);
        assert_eq!(int.value_from("+3"), None);
        assert_eq!(int.value_from("-"), None);
        assert_eq!(float.value_from("1.50"), Some(Value::Float(1.5)));
        assert_eq!(float.value_from("-3"), Some(Value::Float(-3.0)));
        assert_eq!(float.value_from(".5"), Some(Value::Float(0.5)));
        assert_eq!(float.value_from(" 3"), None);
        assert_eq!(float.value_from("+3"), None);
        assert_eq!(float.value_from("3 "), None);
        assert_eq!(float.value_from("e3"), None);
        assert_eq!(float.value_from("2e3"), Some(Value::Float(2000.0)));
        assert_eq!(float.value_from("inf"), None);
        assert_eq!(float.value_from("1e999"), None);
        assert_eq!(float.value_from("{speed}"), None);
        assert_eq!(FieldType::Text.value_from("1"), None);
    }

    #[test]
    fn a_value_is_said_by_the_text_that_reads_as_it() {
        assert!(says("1.50", &Value::Float(1.5)));
        assert!(says("10", &Value::Float(10.0)));
        assert!(!says("1.5", &Value::Float(1.25)));
        assert!(says("True", &Value::Bool(true)));
        assert!(says("7", &Value::Int(7)));
        assert!(!says("7", &Value::Text("7".into())));
    }
}
