//! Random valid trees for property tests: actions with scripts and context keys, child
//! conditions, composites with guards, decorators, and Root interrupts.

use arbor::model::{KeyDecl, KeyType, Node, NodeId, Port, Value};
use proptest::prelude::*;

/// A random valid subtree.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A MockAction: script, position, in/out context key numbers. A script led by `m`
    /// and a digit has a `max_duration` of that many tenths of a second.
    Action(String, f32, f32, Option<u8>, Option<u8>),
    /// A MockCondition: its script and invert flag.
    Check(String, bool),
    /// A composite kind (5: a Sequence that does not halt on failure; 6: one whose
    /// `halt_on_failure` is bound to the key `flag`; 7, 8: a ReactiveSequence, a
    /// ReactiveSelector; 9: a SequenceWithMemory; 10, 11: an IfThenElse, a WhileDoElse,
    /// whose children past the third are dropped), its children, its
    /// guards' scripts (a script led by `o` is an observer's, `aborts_lower`, where the
    /// composite is a Selector's child; elsewhere the `o` is dropped), and its services:
    /// each a MockAction's script (led by `m` and a digit as an action's) and an
    /// `interval` in tenths of a second (0: none).
    Composite(usize, Vec<Shape>, Vec<String>, Vec<(String, u8)>),
    /// A decorator kind (11 to 14: a Repeater, Retry, Cooldown or TimeLimit whose count or
    /// seconds are bound to the key `n`) and its child.
    Decorator(usize, Box<Shape>),
}

/// A random subtree, up to 5 levels deep.
pub fn shape() -> impl Strategy<Value = Shape> {
    let key = proptest::option::weighted(0.2, 0..3u8);
    let leaf = prop_oneof![
        3 => ("(m[1-4])?[RSF]{1,6}", -500f32..500.0, -500f32..500.0, key.clone(), key)
            .prop_map(|(s, x, y, i, o)| Shape::Action(s, x, y, i, o)),
        1 => ("[TF]{1,5}", any::<bool>()).prop_map(|(s, i)| Shape::Check(s, i)),
    ];
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            (
                prop_oneof![4 => 0..5usize, 1 => 7..12usize],
                proptest::collection::vec(inner.clone(), 1..5),
                proptest::collection::vec("o?[TF]{1,6}", 0..3),
                services(),
            )
                .prop_map(|(k, c, g, v)| Shape::Composite(k, c, g, v)),
            (prop_oneof![0..11usize, Just(15)], inner)
                .prop_map(|(k, c)| Shape::Decorator(k, Box::new(c))),
        ]
    })
}

/// A random subtree of the kinds the reference interpreter (`reference.rs`) runs: actions
/// without context keys, conditions, Sequences (halting or not), Selectors, their reactive
/// forms and Parallels
/// with guards, and every decorator but the Regulator; some of their fields bound to the
/// keys [`reference_keys`] declares.
pub fn reference_shape() -> impl Strategy<Value = Shape> {
    let leaf = prop_oneof![
        3 => ("(m[1-4])?[RSF]{1,6}", -500f32..500.0, -500f32..500.0)
            .prop_map(|(s, x, y)| Shape::Action(s, x, y, None, None)),
        1 => ("[TF]{1,5}", any::<bool>()).prop_map(|(s, i)| Shape::Check(s, i)),
    ];
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            (
                prop_oneof![
                    Just(0usize),
                    Just(1),
                    Just(2),
                    Just(5),
                    Just(6),
                    Just(7),
                    Just(8),
                    Just(9),
                    Just(10),
                    Just(11)
                ],
                proptest::collection::vec(inner.clone(), 1..5),
                proptest::collection::vec("o?[TF]{1,6}", 0..3),
                services(),
            )
                .prop_map(|(k, c, g, v)| Shape::Composite(k, c, g, v)),
            (prop_oneof![0..5usize, 6..16usize], inner)
                .prop_map(|(k, c)| Shape::Decorator(k, Box::new(c))),
        ]
    })
}

/// A composite's services, mostly none.
fn services() -> impl Strategy<Value = Vec<(String, u8)>> {
    prop_oneof![
        3 => Just(Vec::new()),
        1 => proptest::collection::vec(("(m[1-4])?[RSF]{1,4}", 0..4u8), 1..3),
    ]
}

fn condition(id: NodeId, script: &str, invert: bool) -> Node {
    let mut n = Node::new(id, "MockCondition");
    n.fields.insert("script".into(), Value::Text(script.into()));
    if invert {
        n.fields.insert("invert".into(), Value::Bool(true));
    }
    n
}

/// A MockAction playing `script`; a script led by `m` and a digit has a `max_duration` of
/// that many tenths of a second.
fn action(id: NodeId, script: &str) -> Node {
    let mut n = Node::new(id, "MockAction");
    let (limit, script) = match script.strip_prefix('m') {
        Some(rest) => (rest[..1].parse::<f64>().ok(), &rest[1..]),
        None => (None, script),
    };
    if let Some(tenths) = limit {
        n.fields
            .insert("max_duration".into(), Value::Float(tenths / 10.0));
    }
    n.fields.insert("script".into(), Value::Text(script.into()));
    n
}

/// Adds the nodes of `shape` to `nodes`, returning the id of its top node.
pub fn build(shape: &Shape, nodes: &mut Vec<Node>) -> NodeId {
    build_under(shape, nodes, false)
}

/// [`build`] of a shape whose parent is a Selector (`under_selector`) or not.
fn build_under(shape: &Shape, nodes: &mut Vec<Node>, under_selector: bool) -> NodeId {
    let id = NodeId::new(format!("n{}", nodes.len()));
    let at = nodes.len();
    nodes.push(Node::new(id.clone(), ""));
    let node = match shape {
        Shape::Action(script, x, y, input, output) => {
            let mut n = action(id.clone(), script);
            if let Some(k) = input {
                n.fields
                    .insert("in_context".into(), Value::Text(format!("k{k}")));
            }
            if let Some(k) = output {
                n.fields
                    .insert("out_context".into(), Value::Text(format!("k{k}")));
                n.fields
                    .insert("produces".into(), Value::Text(format!("from {id}")));
            }
            n.position = [*x, *y];
            let played = n.fields.get("script").and_then(Value::as_str).unwrap_or("");
            n.title = format!("do {played}");
            n
        }
        Shape::Check(script, invert) => condition(id.clone(), script, *invert),
        Shape::Composite(k, children, guards, services) => {
            let kind = [
                "Sequence",
                "Selector",
                "Parallel",
                "RandomSequence",
                "RandomSelector",
                "Sequence",
                "Sequence",
                "ReactiveSequence",
                "ReactiveSelector",
                "SequenceWithMemory",
                "IfThenElse",
                "WhileDoElse",
            ][*k];
            let mut n = Node::new(id.clone(), kind);
            if *k == 5 {
                n.fields
                    .insert("halt_on_failure".into(), Value::Bool(false));
            }
            if *k == 6 {
                n.fields
                    .insert("halt_on_failure".into(), Value::Key("flag".into()));
            }
            // IfThenElse and WhileDoElse take 2 or 3 children: a lone child gets an
            // AlwaysSuccess before it.
            let (lead, children) = match (*k, children.len()) {
                (10 | 11, 1) => {
                    let lead = NodeId::new(format!("n{}", nodes.len()));
                    nodes.push(Node::new(lead.clone(), "AlwaysSuccess"));
                    (Some(lead), &children[..])
                }
                (10 | 11, _) => (None, &children[..children.len().min(3)]),
                _ => (None, &children[..]),
            };
            let kids: Vec<NodeId> = lead
                .into_iter()
                .chain(
                    children
                        .iter()
                        .map(|c| build_under(c, nodes, kind == "Selector")),
                )
                .collect();
            let conds: Vec<NodeId> = guards
                .iter()
                .map(|g| {
                    let gid = NodeId::new(format!("n{}", nodes.len()));
                    let script = g.trim_start_matches('o');
                    let mut c = condition(gid.clone(), script, false);
                    if under_selector && script.len() < g.len() {
                        c.fields.insert("aborts_lower".into(), Value::Bool(true));
                    }
                    nodes.push(c);
                    gid
                })
                .collect();
            let services: Vec<NodeId> = services
                .iter()
                .map(|(script, tenths)| {
                    let vid = NodeId::new(format!("n{}", nodes.len()));
                    let mut v = action(vid.clone(), script);
                    if *tenths > 0 {
                        v.fields
                            .insert("interval".into(), Value::Float(f64::from(*tenths) / 10.0));
                    }
                    nodes.push(v);
                    vid
                })
                .collect();
            n.inputs.insert(Port::Children, kids);
            if !conds.is_empty() {
                n.inputs.insert(Port::Conditions, conds);
            }
            if !services.is_empty() {
                n.inputs.insert(Port::Services, services);
            }
            n
        }
        Shape::Decorator(k, child) => {
            let kind = [
                "Inverter",
                "Repeater",
                "UntilFail",
                "ForceSuccess",
                "ForceFailure",
                "Regulator",
                "Retry",
                "Cooldown",
                "TimeLimit",
                "RunOnce",
                "Retry",
                "Repeater",
                "Retry",
                "Cooldown",
                "TimeLimit",
                "KeepRunningUntilFailure",
            ][*k];
            let mut n = Node::new(id.clone(), kind);
            match *k {
                1 => {
                    n.fields.insert("times".into(), Value::Int(3));
                }
                5 => {
                    n.fields.insert("hz".into(), Value::Float(2.5));
                }
                6 => {
                    n.fields.insert("times".into(), Value::Int(2));
                }
                7 => {
                    n.fields.insert("seconds".into(), Value::Float(0.25));
                }
                8 => {
                    n.fields.insert("seconds".into(), Value::Float(0.35));
                }
                10 => {
                    n.fields.insert("times".into(), Value::Int(0));
                }
                11 | 12 => {
                    n.fields.insert("times".into(), Value::Key("n".into()));
                }
                13 | 14 => {
                    n.fields.insert("seconds".into(), Value::Key("n".into()));
                }
                _ => {}
            }
            let c = build(child, nodes);
            n.inputs.insert(Port::Child, vec![c]);
            n
        }
    };
    nodes[at] = node;
    id
}

/// The keys a tree of [`reference_shape`]s declares: `n`, an `int` holding `n` from the
/// start (0 fits no field's seconds, and makes a count loop for ever), and `flag`, a
/// `bool` that holds no value.
pub fn reference_keys(n: i64) -> Vec<KeyDecl> {
    vec![
        KeyDecl {
            default: Some(Value::Int(n)),
            ..KeyDecl::new("n", KeyType::Int)
        },
        KeyDecl::new("flag", KeyType::Bool),
    ]
}

/// A whole tree: Root over `main`, with an Interrupt (id `i0`, `i1` …) over each of `interrupts`.
pub fn tree_nodes(main: &Shape, interrupts: &[(Shape, bool)]) -> Vec<Node> {
    let mut nodes = vec![Node::new("root", "Root")];
    let child = build(main, &mut nodes);
    nodes[0].inputs.insert(Port::Child, vec![child]);
    let mut ids = Vec::new();
    for (i, (s, force_reset)) in interrupts.iter().enumerate() {
        let id = NodeId::new(format!("int{i}"));
        let mut n = Node::new(id.clone(), "Interrupt");
        n.fields
            .insert("interrupt_id".into(), Value::Text(format!("i{i}")));
        n.fields
            .insert("force_reset".into(), Value::Bool(*force_reset));
        n.fields
            .insert("out_context".into(), Value::Text("k0".into()));
        nodes.push(n);
        let at = nodes.len() - 1;
        let c = build(s, &mut nodes);
        nodes[at].inputs.insert(Port::Child, vec![c]);
        ids.push(id);
    }
    if !ids.is_empty() {
        nodes[0].inputs.insert(Port::Interrupts, ids);
    }
    nodes
}
