//! Which BehaviorTree.CPP node is which Arbor kind, and how their settings correspond
//! (docs/BTCPP.md, "Nodes"): the one place that names BehaviorTree.CPP's built-ins.

use std::sync::LazyLock;

use crate::model::{Category, Value};

/// A BehaviorTree.CPP built-in that runs as an Arbor kind: its name there, the Arbor kind,
/// and each port that is an Arbor field.
pub(super) struct Mapped {
    pub btcpp: &'static str,
    pub arbor: &'static str,
    pub ports: &'static [Port],
}

/// A port of a mapped node: its name, the Arbor field, and how a value passes between
/// them.
pub(super) struct Port {
    pub name: &'static str,
    pub field: &'static str,
    pub conv: Conv,
}

#[derive(Clone, Copy)]
pub(super) enum Conv {
    /// A count where BehaviorTree.CPP's -1 is Arbor's 0 (for ever); 0 itself has no Arbor
    /// form (BehaviorTree.CPP then does nothing and succeeds).
    Count,
    /// Milliseconds there, seconds here.
    Millis,
    /// A Parallel's threshold: -1 or every child is `all`, 1 is `one`. (`success_count`
    /// and `failure_count` read alike.)
    Threshold,
    /// Text as written, or a `{key}` the field is bound to.
    Text,
    /// A port that names a blackboard entry by its name (SetBlackboard's `output_key`), as
    /// the name of the key an `out_context` field writes.
    KeyName,
    /// True or false (`true`, `1` …), BehaviorTree.CPP's default when the port is not
    /// written being this (RunOnce's `then_skip`).
    Flag(bool),
    /// A blackboard entry named as `{key}` or as `key` (the entry-updated nodes' `entry`),
    /// as the name of the key a context-key field names.
    EntryName,
}

impl Conv {
    /// The field's value where the port is not written, when that is not "unset".
    pub(super) fn absent(self) -> Option<Value> {
        match self {
            Conv::Flag(default) => Some(Value::Bool(default)),
            _ => None,
        }
    }
}

/// The entry-updated nodes' `entry`.
const ENTRY: Port = Port {
    name: "entry",
    field: "entry",
    conv: Conv::EntryName,
};

pub(super) const MAPPED: &[Mapped] = &[
    Mapped {
        btcpp: "Sequence",
        arbor: "Sequence",
        ports: &[],
    },
    Mapped {
        btcpp: "Fallback",
        arbor: "Selector",
        ports: &[],
    },
    Mapped {
        btcpp: "ReactiveSequence",
        arbor: "ReactiveSequence",
        ports: &[],
    },
    Mapped {
        btcpp: "ReactiveFallback",
        arbor: "ReactiveSelector",
        ports: &[],
    },
    Mapped {
        btcpp: "SequenceWithMemory",
        arbor: "SequenceWithMemory",
        ports: &[],
    },
    Mapped {
        btcpp: "IfThenElse",
        arbor: "IfThenElse",
        ports: &[],
    },
    Mapped {
        btcpp: "WhileDoElse",
        arbor: "WhileDoElse",
        ports: &[],
    },
    Mapped {
        btcpp: "Parallel",
        arbor: "Parallel",
        ports: &[
            Port {
                name: "success_count",
                field: "success",
                conv: Conv::Threshold,
            },
            Port {
                name: "failure_count",
                field: "failure",
                conv: Conv::Threshold,
            },
        ],
    },
    Mapped {
        btcpp: "Inverter",
        arbor: "Inverter",
        ports: &[],
    },
    Mapped {
        btcpp: "ForceSuccess",
        arbor: "ForceSuccess",
        ports: &[],
    },
    Mapped {
        btcpp: "ForceFailure",
        arbor: "ForceFailure",
        ports: &[],
    },
    Mapped {
        btcpp: "Repeat",
        arbor: "Repeater",
        ports: &[Port {
            name: "num_cycles",
            field: "times",
            conv: Conv::Count,
        }],
    },
    Mapped {
        btcpp: "RetryUntilSuccessful",
        arbor: "Retry",
        ports: &[Port {
            name: "num_attempts",
            field: "times",
            conv: Conv::Count,
        }],
    },
    Mapped {
        btcpp: "Timeout",
        arbor: "TimeLimit",
        ports: &[Port {
            name: "msec",
            field: "seconds",
            conv: Conv::Millis,
        }],
    },
    Mapped {
        btcpp: "Delay",
        arbor: "Delay",
        ports: &[Port {
            name: "delay_msec",
            field: "seconds",
            conv: Conv::Millis,
        }],
    },
    Mapped {
        btcpp: "KeepRunningUntilFailure",
        arbor: "KeepRunningUntilFailure",
        ports: &[],
    },
    Mapped {
        btcpp: "Sleep",
        arbor: "Wait",
        ports: &[Port {
            name: "msec",
            field: "seconds",
            conv: Conv::Millis,
        }],
    },
    Mapped {
        btcpp: "SetBlackboard",
        arbor: "SetKey",
        ports: &[
            Port {
                name: "value",
                field: "value",
                conv: Conv::Text,
            },
            Port {
                name: "output_key",
                field: "out_context",
                conv: Conv::KeyName,
            },
        ],
    },
    Mapped {
        btcpp: "UnsetBlackboard",
        arbor: "UnsetKey",
        ports: &[Port {
            name: "key",
            field: "out_context",
            conv: Conv::KeyName,
        }],
    },
    Mapped {
        btcpp: "WasEntryUpdated",
        arbor: "WasEntryUpdated",
        ports: &[ENTRY],
    },
    Mapped {
        btcpp: "SkipUnlessUpdated",
        arbor: "SkipUnlessUpdated",
        ports: &[ENTRY],
    },
    Mapped {
        btcpp: "WaitValueUpdate",
        arbor: "WaitValueUpdate",
        ports: &[ENTRY],
    },
    Mapped {
        btcpp: "RunOnce",
        arbor: "RunOnce",
        ports: &[Port {
            name: "then_skip",
            field: "then_skip",
            conv: Conv::Flag(true),
        }],
    },
];

/// BehaviorTree.CPP's other built-in controls and decorators: read and written as they
/// are, as the kinds of their names (Arbor has the Switches, Precondition and the Loops;
/// the others no library defines yet: docs/BTCPP.md).
const OTHER_CONTROLS: &[&str] = &[
    "AsyncSequence",
    "AsyncFallback",
    "Switch2",
    "Switch3",
    "Switch4",
    "Switch5",
    "Switch6",
    "ManualSelector",
];
const OTHER_DECORATORS: &[&str] = &[
    "Precondition",
    "LoopInt",
    "LoopDouble",
    "LoopString",
    "LoopBool",
];

/// BehaviorTree.CPP's built-in leaves: read and written as they are (AlwaysSuccess,
/// AlwaysFailure, Script and ScriptCondition are Arbor's kinds of those names).
const OTHER_LEAVES: &[&str] = &[
    "AlwaysSuccess",
    "AlwaysFailure",
    "Script",
    "ScriptCondition",
];

/// The suffix of a kind of the file's own whose name is one of Arbor's built-ins that
/// BehaviorTree.CPP does not have (Nav2's `Wait`, the tutorial's `OpenDoor`): in the file
/// the name is the file's kind, not Arbor's, so it is read as `Wait_own` and written back
/// as `Wait`. (A name ending so whose stem is such a name, or ends so itself, is marked
/// once more, so that every name of a file comes back as written.)
pub const OWN: &str = "_own";

/// Arbor's test leaves, which keep their meaning in a file: a scripted stand-in
/// (BehaviorTree.CPP runs a node registered under that name).
const ARBOR_IN_FILES: &[&str] = &["MockAction", "MockCondition"];

/// Arbor's built-in kinds.
pub(super) static BUILT_IN: LazyLock<crate::model::Catalog> =
    LazyLock::new(crate::model::Catalog::builtin);

/// Whether Arbor has a built-in kind named `name` that an element of that name does not
/// mean: one BehaviorTree.CPP does not have (Arbor's world, Wait …).
fn taken(name: &str) -> bool {
    BUILT_IN.kind(name).is_some()
        && !is_builtin(name)
        && name != "SubTree"
        && !ARBOR_IN_FILES.contains(&name)
}

/// The fields Arbor's built-in `kind`, written by its name (Script, Precondition …), has
/// of its own with a default, each with that default: a node that leaves one unset is
/// written with it, as BehaviorTree.CPP requires its port (`<Script>` without `code` does
/// not load).
pub(super) fn own_defaults(kind: &str) -> impl Iterator<Item = (&'static str, &'static Value)> {
    BUILT_IN
        .kind(kind)
        .into_iter()
        .flat_map(|k| k.own_fields())
        .filter_map(|f| Some((f.name.as_str(), f.default.as_ref()?)))
}

/// The Arbor kind of a node of the file's own named `name` in the file: `name`, marked
/// with [`OWN`] when Arbor has a built-in of that name.
pub(super) fn own_kind(name: &str) -> std::borrow::Cow<'_, str> {
    let stem = name.strip_suffix(OWN).unwrap_or(name);
    let marked = name.ends_with(OWN) && (taken(stem) || stem.ends_with(OWN));
    if taken(name) || marked {
        format!("{name}{OWN}").into()
    } else {
        name.into()
    }
}

/// The element name of Arbor kind `kind` of the file's own: `kind` without the mark
/// [`own_kind`] gives.
pub(super) fn own_name(kind: &str) -> &str {
    match kind.strip_suffix(OWN) {
        Some(stem) if own_kind(stem) == kind => stem,
        _ => kind,
    }
}

/// Whether `name` is a node BehaviorTree.CPP registers itself (which a tree's ID may not
/// be, nor `Root`).
pub(super) fn is_builtin(name: &str) -> bool {
    name == "Root"
        || by_btcpp(name).is_some()
        || fixed_form(name).is_some()
        || OTHER_CONTROLS
            .iter()
            .chain(OTHER_DECORATORS)
            .chain(OTHER_LEAVES)
            .any(|k| *k == name)
}

/// Whether Arbor's kind `kind` has no BehaviorTree.CPP form: one of Arbor's built-ins
/// that BehaviorTree.CPP has under no name (Arbor's world, RandomSequence, Cooldown …). A
/// node of one made in Arbor is not written into a file; one read from a file is that
/// file's own kind (`MoveTo_own`), written back as read.
pub(super) fn arbor_only(kind: &str) -> bool {
    taken(kind) && by_arbor(kind).is_none() && !FIXED_FORMS.iter().any(|f| f.arbor == kind)
}

/// The fields of a mapped Arbor kind that are not ports, with the value BehaviorTree.CPP's
/// node behaves as: any other value has no BehaviorTree.CPP form.
pub(super) const FIXED: &[(&str, &str, Value)] = &[
    ("Sequence", "halt_on_failure", Value::Bool(true)),
    ("Repeater", "ignore_failures", Value::Bool(false)),
];

/// A BehaviorTree.CPP built-in that is an Arbor kind with some of its fields fixed: the
/// fields as the node behaves, and a port whose one value Arbor has (any other is
/// refused by name).
pub(super) struct FixedForm {
    pub btcpp: &'static str,
    pub arbor: &'static str,
    pub fields: &'static [(&'static str, &'static str)],
    pub port: (&'static str, &'static str),
}

pub(super) const FIXED_FORMS: &[FixedForm] = &[FixedForm {
    // It ticks every child to its end and fails when `max_failures` of them failed: with
    // 1, Arbor's Parallel that succeeds when all do and fails when all have finished
    // otherwise.
    btcpp: "ParallelAll",
    arbor: "Parallel",
    fields: &[("success", "all"), ("failure", "all")],
    port: ("max_failures", "1"),
}];

/// The fixed form BehaviorTree.CPP node `name` is, if it is one.
pub(super) fn fixed_form(name: &str) -> Option<&'static FixedForm> {
    FIXED_FORMS.iter().find(|f| f.btcpp == name)
}

/// The mapping of BehaviorTree.CPP node `name`, if it runs as an Arbor kind.
pub(super) fn by_btcpp(name: &str) -> Option<&'static Mapped> {
    MAPPED.iter().find(|m| m.btcpp == name)
}

/// The mapping of Arbor kind `kind`, if BehaviorTree.CPP has it.
pub(super) fn by_arbor(kind: &str) -> Option<&'static Mapped> {
    MAPPED.iter().find(|m| m.arbor == kind)
}

/// How the children of a node of BehaviorTree.CPP kind `name` link in Arbor, where its
/// name says it (`Some(true)`: as a composite's children; `Some(false)`: as a decorator's
/// child); `None` for a kind of BehaviorTree.CPP's that Arbor does not know.
pub(super) fn takes_children(name: &str) -> Option<bool> {
    let arbor = by_btcpp(name)
        .map(|m| m.arbor)
        .or(fixed_form(name).map(|f| f.arbor));
    match arbor {
        Some(arbor) => Some(composite(arbor)),
        None if OTHER_CONTROLS.contains(&name) => Some(true),
        None if OTHER_DECORATORS.contains(&name) => Some(false),
        None => None,
    }
}

/// Whether Arbor's built-in branch `arbor` is a composite (its catalog entry says).
fn composite(arbor: &str) -> bool {
    BUILT_IN
        .kind(arbor)
        .is_some_and(|k| k.category == Category::Composite)
}

/// The Arbor value of port `port`'s value `text`, or why it has none.
pub(super) fn to_field(
    conv: Conv,
    port: &str,
    text: &str,
    children: usize,
) -> Result<Value, String> {
    if let Some(key) = key_of(port, text) {
        return match conv {
            Conv::Count | Conv::Text => Ok(Value::Key(key.to_owned())),
            Conv::EntryName => Ok(Value::Text(key.to_owned())),
            Conv::KeyName => Err(format!(
                "'{text}' reads the entry's name from another entry; Arbor's out_context names its key itself (write the name, as `{key}`)"
            )),
            Conv::Millis | Conv::Threshold | Conv::Flag(_) => Err(format!(
                "'{text}' reads a blackboard entry; Arbor reads this field from a key only in its own unit and words, which a file cannot say yet"
            )),
        };
    }
    match conv {
        Conv::Text => return Ok(Value::Text(text.to_owned())),
        Conv::EntryName => {
            return match crate::model::key_name_problem(text) {
                None => Ok(Value::Text(text.to_owned())),
                Some(why) => Err(format!("'{text}' names no key Arbor can read: {why}")),
            };
        }
        Conv::Flag(_) => {
            return crate::model::FieldType::Bool
                .value_from(text)
                .ok_or_else(|| format!("'{text}' is neither true nor false"));
        }
        Conv::KeyName => {
            return match crate::model::key_name_problem(text) {
                None => Ok(Value::Text(text.to_owned())),
                Some(why) => Err(format!("'{text}' names no key Arbor can write: {why}")),
            };
        }
        _ => {}
    }
    if text.starts_with('{') {
        return Err(format!(
            "'{text}' is not a blackboard entry Arbor can name (a key is letters, digits, '_', '.' and '-')"
        ));
    }
    let whole = crate::model::FieldType::Int {
        min: i64::MIN,
        max: i64::MAX,
    };
    let Some(Value::Int(number)) = whole.value_from(text) else {
        return Err(format!("'{text}' is not a whole number"));
    };
    match conv {
        Conv::Count => match number {
            -1 => Ok(Value::Int(0)),
            n if n >= 1 => Ok(Value::Int(n)),
            _ => Err(format!(
                "{number} runs: Arbor's loops run their child at least once (0 is for ever there); use -1 or a count of 1 or more"
            )),
        },
        Conv::Millis if number > 0 => Ok(Value::Float(number as f64 / 1000.0)),
        Conv::Millis => Err(format!(
            "{number} ms: Arbor takes a time of more than 0 here"
        )),
        Conv::Text | Conv::KeyName | Conv::Flag(_) | Conv::EntryName => {
            Err(format!("'{text}' is not a value here"))
        }
        Conv::Threshold => {
            let n = i64::try_from(children).unwrap_or(i64::MAX);
            match number {
                -1 => Ok(Value::Text("all".into())),
                1 => Ok(Value::Text("one".into())),
                x if x == n => Ok(Value::Text("all".into())),
                x => Err(format!(
                    "a threshold of {x} of {n} children: Arbor's Parallel waits for one child or all of them"
                )),
            }
        }
    }
}

/// The port value of Arbor value `value`, or why it has none.
pub(super) fn to_port(conv: Conv, value: &Value) -> Result<String, String> {
    match (conv, value) {
        (Conv::Count | Conv::Text, Value::Key(k)) => Ok(format!("{{{k}}}")),
        (Conv::Text, v) => Ok(plain(v)),
        (Conv::KeyName, Value::Text(k)) if !k.is_empty() => Ok(k.clone()),
        (Conv::EntryName, Value::Text(k)) if !k.is_empty() => Ok(format!("{{{k}}}")),
        (Conv::Count, Value::Int(0)) => Ok("-1".into()),
        (Conv::Count, Value::Int(n)) => Ok(n.to_string()),
        (Conv::Millis, v) if v.as_f64().is_some() => {
            let ms = v.as_f64().unwrap_or_default() * 1000.0;
            if (ms - ms.round()).abs() < 1e-6 {
                Ok(format!("{}", ms.round() as i64))
            } else {
                Err(format!(
                    "{} s is not a whole number of milliseconds, which is what BehaviorTree.CPP reads",
                    ms / 1000.0
                ))
            }
        }
        (Conv::Threshold, Value::Text(t)) if t == "all" => Ok("-1".into()),
        (Conv::Threshold, Value::Text(t)) if t == "one" => Ok("1".into()),
        (Conv::Flag(_), Value::Bool(b)) => Ok(b.to_string()),
        (_, v) => Err(format!("{} has no BehaviorTree.CPP form here", plain(v))),
    }
}

/// The key port `port`'s value `text` names, if it is one Arbor can name: `{NAME}`;
/// `{@NAME}`, the root blackboard's entry, which in a file's one tree is the tree's own;
/// `{=}`, the entry named as the port is.
pub(super) fn key_of<'t>(port: &'t str, text: &'t str) -> Option<&'t str> {
    let inner = text.strip_prefix('{')?.strip_suffix('}')?;
    let name = match inner {
        "=" => port,
        _ => inner.strip_prefix('@').unwrap_or(inner),
    };
    Value::key_in_braces(&format!("{{{name}}}"))
        .is_some()
        .then_some(name)
}

/// Any field value as an attribute's text: `{NAME}` for a key.
pub(super) fn plain(v: &Value) -> String {
    match v {
        Value::Text(t) => t.clone(),
        v => v.to_string(),
    }
}

/// Attribute `port`'s text as a field value of a kind Arbor does not know: a key for a
/// value that names one (see [`key_of`]), else the text.
pub(super) fn raw(port: &str, text: &str) -> Value {
    match key_of(port, text) {
        Some(key) => Value::Key(key.to_owned()),
        None => Value::Text(text.to_owned()),
    }
}
