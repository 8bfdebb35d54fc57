//! Reading BehaviorTree.CPP files as trees and writing them back.

use super::{Document, read, write};
use crate::model::{NodeId, Port, Value};

const GUARD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Guard">
    <!-- the guard's main tree -->
    <BehaviorTree ID="Guard" _description="patrol, and chase what comes near">
        <Fallback name="duty" _uid="1">
            <Sequence name="chase">
                <IsIntruderNear distance="{range}" _favorite="true"/>
                <!-- run it down -->
                <MoveTo target="{intruder}"/>
            </Sequence>
            <Repeat num_cycles="-1">
                <Timeout msec="1500">
                    <Action ID="Patrol" route="north"/>
                </Timeout>
            </Repeat>
        </Fallback>
    </BehaviorTree>
    <BehaviorTree ID="Other">
        <AlwaysSuccess/>
    </BehaviorTree>
    <TreeNodesModel>
        <Condition ID="IsIntruderNear"><input_port name="distance"/></Condition>
    </TreeNodesModel>
</root>
"#;

#[test]
fn a_file_read_and_written_with_no_edit_is_the_same_file() {
    let x = read(GUARD).unwrap();
    let tree = &x.tree;
    let node = |id: &str| tree.node(&NodeId::new(id)).unwrap();
    assert_eq!(node("duty").kind, "Selector");
    assert_eq!(node("chase").kind, "Sequence");
    assert_eq!(node("repeat").kind, "Repeater");
    assert_eq!(node("repeat").fields.get("times"), Some(&Value::Int(0)));
    assert_eq!(node("timeout").kind, "TimeLimit");
    assert_eq!(
        node("timeout").fields.get("seconds"),
        Some(&Value::Float(1.5))
    );
    assert_eq!(node("patrol").kind, "Patrol");
    assert_eq!(
        node("is_intruder_near").fields.get("distance"),
        Some(&Value::Key("range".into()))
    );
    assert_eq!(node("repeat").linked(Port::Child).len(), 1);
    assert_eq!(node("duty").linked(Port::Children).len(), 2);
    let written = write(tree, Some(&x.source)).unwrap().0;
    assert_same(GUARD, &written);
}

#[test]
fn an_edit_changes_only_its_attribute() {
    let x = read(GUARD).unwrap();
    let mut tree = x.tree.clone();
    let mut nodes = tree.nodes().to_vec();
    for n in &mut nodes {
        if n.id.as_str() == "timeout" {
            n.fields.insert("seconds".into(), Value::Float(2.0));
        }
    }
    tree = crate::model::Tree::from_nodes(nodes).unwrap();
    let written = write(&tree, Some(&x.source)).unwrap().0;
    let expected = GUARD.replace("msec=\"1500\"", "msec=\"2000\"");
    assert_same(&expected, &written);
}

#[test]
fn a_tree_of_arbor_is_written_as_a_new_file() {
    let x = read(GUARD).unwrap();
    let written = write(&x.tree, None).unwrap().0;
    let back = read(&written).unwrap();
    assert_eq!(back.tree.nodes().len(), x.tree.nodes().len());
    assert!(written.contains("<Fallback name=\"duty\">"), "{written}");
    assert!(
        !written.contains("_uid"),
        "a new file keeps nothing of another"
    );
}

#[test]
fn what_arbor_cannot_read_or_write_is_said_with_its_place() {
    let e = read("<root><BehaviorTree ID=\"A\"><SubTree _autoremap=\"1\"/></BehaviorTree></root>")
        .unwrap_err();
    assert_eq!((e.line, e.column), (1, 28));
    assert!(e.message.contains("<SubTree> without an ID"), "{e:?}");
    let e = read("<root><BehaviorTree ID=\"A\"><SubTree ID=\"B\" _autoremap=\"maybe\"/></BehaviorTree></root>")
        .unwrap_err();
    assert!(e.message.contains("neither true nor false"), "{e:?}");
    let e =
        read("<root><BehaviorTree ID=\"A\"><SubTree ID=\"B\"><A/></SubTree></BehaviorTree></root>")
            .unwrap_err();
    assert!(e.message.contains("has no children"), "{e:?}");
    let e = read(
        "<root><BehaviorTree ID=\"A\"><Repeat num_cycles=\"0\"><A/></Repeat></BehaviorTree></root>",
    )
    .unwrap_err();
    assert!(e.message.contains("num_cycles"), "{e:?}");
    let e = read("<root><BehaviorTree ID=\"A\"><Parallel success_count=\"2\"><A/><B/><C/></Parallel></BehaviorTree></root>")
        .unwrap_err();
    assert!(e.message.contains("2 of 3"), "{e:?}");
    let e = read("<root>\n<BehaviorTree ID=\"A\"><SubTree ID=\"Fallback\"/></BehaviorTree>\n<BehaviorTree ID=\"Fallback\"><A/></BehaviorTree></root>")
        .unwrap_err();
    assert_eq!((e.line, e.column), (3, 1));
    assert!(
        e.message
            .contains("cannot take the name of BehaviorTree.CPP's own node Fallback"),
        "{e:?}"
    );
    let e = read("<root><BehaviorTree ID=\"A\"><SubTree ID=\"Script\"/></BehaviorTree></root>")
        .unwrap_err();
    assert!(e.message.contains("own node Script"), "{e:?}");
    let e = read("<tree/>").unwrap_err();
    assert!(e.message.contains("<root>"), "{e:?}");
    let e = read("<root><BehaviorTree").unwrap_err();
    assert_eq!(e.line, 1);
}

#[test]
fn what_has_no_behaviortree_cpp_form_is_refused_by_name() {
    let x = read(GUARD).unwrap();
    let mut tree = x.tree.clone();
    tree.keys = Some(vec![crate::model::KeyDecl::new(
        "range",
        crate::model::KeyType::Float,
    )]);
    let e = write(&tree, Some(&x.source)).unwrap_err();
    assert!(e.message.contains("declares keys"), "{e:?}");
    let mut nodes = x.tree.nodes().to_vec();
    for n in &mut nodes {
        if n.id.as_str() == "chase" {
            n.fields
                .insert("halt_on_failure".into(), Value::Bool(false));
        }
        if n.id.as_str() == "timeout" {
            n.fields.insert("seconds".into(), Value::Float(0.0005));
        }
    }
    let tree = crate::model::Tree::from_nodes(nodes).unwrap();
    let e = write(&tree, Some(&x.source)).unwrap_err();
    assert!(e.message.starts_with("[chase]"), "{e:?}");
    // A SubTree of a tree of the file made in Arbor is BehaviorTree.CPP's SubTree.
    let mut root = crate::model::Node::new("root", "Root");
    root.inputs.insert(Port::Child, vec![NodeId::new("walk")]);
    let mut walk = crate::model::Node::new("walk", "SubTree");
    walk.fields
        .insert("asset".into(), Value::Text("#Walk".into()));
    let tree = crate::model::Tree::from_nodes(vec![root, walk]).unwrap();
    let written = write(&tree, None).unwrap().0;
    assert!(written.contains(r#"<SubTree ID="Walk""#), "{written}");
    // Arbor's own world kinds: a file would read them back as its own (`MoveTo_own`).
    for kind in ["MoveTo", "HasContext", "Cooldown"] {
        let mut root = crate::model::Node::new("root", "Root");
        root.inputs.insert(Port::Child, vec![NodeId::new("n")]);
        let mut n = crate::model::Node::new("n", kind);
        if kind == "Cooldown" {
            n.inputs.insert(Port::Child, vec![NodeId::new("a")]);
        }
        let a = crate::model::Node::new("a", "AlwaysSuccess");
        let tree = crate::model::Tree::from_nodes(vec![root, n, a]).unwrap();
        let e = write(&tree, None).unwrap_err();
        assert!(
            e.message
                .contains(&format!("BehaviorTree.CPP has no {kind}")),
            "{e:?}"
        );
    }
}

/// A node added before others of its kind: each element keeps its own attributes over two
/// saves (the second written from what the first wrote, as the editor does).
#[test]
fn a_node_added_before_others_of_its_kind_leaves_each_its_attributes_over_two_saves() {
    use crate::model::{Node, Tree};
    let text = r#"<root BTCPP_format="4"><BehaviorTree ID="A"><Fallback>
        <Sequence _uid="1"><A/></Sequence><Sequence _uid="2"><B/></Sequence>
    </Fallback></BehaviorTree></root>"#;
    let x = read(text).unwrap();
    let mut nodes = x.tree.nodes().to_vec();
    for n in &mut nodes {
        if n.kind == "Selector" {
            n.inputs
                .get_mut(&Port::Children)
                .unwrap()
                .insert(0, NodeId::new("added"));
        }
    }
    let mut added = Node::new("added", "Sequence");
    added.inputs.insert(Port::Children, vec![NodeId::new("c")]);
    nodes.push(added);
    nodes.push(Node::new("c", "C"));
    let tree = Tree::from_nodes(nodes).unwrap();
    let (first, source) = write(&tree, Some(&x.source)).unwrap();
    let (second, _) = write(&tree, Some(&source)).unwrap();
    assert_eq!(first, second, "the second save changes nothing");
    let at = |s: &str| first.find(s).unwrap();
    assert!(
        at("<Sequence>") < at(r#"<Sequence _uid="1">"#)
            && at(r#"<Sequence _uid="1">"#) < at("<A/>")
            && at("<A/>") < at(r#"<Sequence _uid="2">"#),
        "{first}"
    );
}

/// Each thing Arbor's model holds that a BehaviorTree.CPP file cannot say is refused by
/// node, never dropped: a Repeater that ignores failures, a bound halt_on_failure, an Arbor
/// built-in BehaviorTree.CPP lacks, a comment; and a time of 1.005 s is 1005 ms.
#[test]
fn nothing_the_tree_says_is_dropped_on_save() {
    let x = read(GUARD).unwrap();
    let edited = |id: &str, f: &dyn Fn(&mut crate::model::Node)| {
        let mut nodes = x.tree.nodes().to_vec();
        for n in &mut nodes {
            if n.id.as_str() == id {
                f(n);
            }
        }
        crate::model::Tree::from_nodes(nodes).unwrap()
    };
    let refused = |tree: crate::model::Tree| write(&tree, Some(&x.source)).unwrap_err().message;
    let m = refused(edited("repeat", &|n| {
        n.fields.insert("ignore_failures".into(), Value::Bool(true));
    }));
    assert!(m.starts_with("[repeat] its ignore_failures true"), "{m}");
    let m = refused(edited("chase", &|n| {
        n.fields
            .insert("halt_on_failure".into(), Value::Key("strict".into()));
    }));
    assert!(m.starts_with("[chase] its halt_on_failure {strict}"), "{m}");
    let m = refused(edited("chase", &|n| n.comment = "why".into()));
    assert!(m.contains("comment"), "{m}");
    let m = refused(edited("repeat", &|n| n.kind = "Cooldown".into()));
    assert!(m.contains("BehaviorTree.CPP has no Cooldown"), "{m}");
    let (text, _) = write(
        &edited("timeout", &|n| {
            n.fields.insert("seconds".into(), Value::Float(1.005));
        }),
        Some(&x.source),
    )
    .unwrap();
    assert!(text.contains(r#"msec="1005""#), "{text}");
}

#[test]
fn root_blackboard_and_same_name_entries_are_keys_and_are_written_as_they_were() {
    let text = r#"<root BTCPP_format="4">
    <BehaviorTree ID="Main">
        <Sequence>
            <Repeat num_cycles="{@rounds}">
                <SaySomething message="{@greeting}" volume="{=}" tone="{odd key!}"/>
            </Repeat>
            <Wave hand="{left}"/>
        </Sequence>
    </BehaviorTree>
</root>
"#;
    let mut x = read(text).unwrap();
    let field = |x: &super::XmlTree, id: &str, f: &str| {
        x.tree
            .node(&NodeId::new(id))
            .unwrap()
            .fields
            .get(f)
            .cloned()
    };
    let key = |k: &str| Some(Value::Key(k.into()));
    assert_eq!(field(&x, "repeat", "times"), key("rounds"));
    assert_eq!(field(&x, "say_something", "message"), key("greeting"));
    assert_eq!(field(&x, "say_something", "volume"), key("volume"));
    // Not a key Arbor can name: kept as text.
    assert_eq!(
        field(&x, "say_something", "tone"),
        Some(Value::Text("{odd key!}".into()))
    );
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert_same(text, &written);
    // An edit writes the key in the plain form; what it did not touch stays as it was.
    let id = NodeId::new("say_something");
    let catalog = crate::model::Catalog::builtin();
    x.tree
        .apply(
            crate::model::Edit::SetField {
                id,
                name: "message".into(),
                value: Some(Value::Key("farewell".into())),
            },
            &catalog,
        )
        .unwrap();
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert!(
        written.contains(r#"message="{farewell}" volume="{=}""#),
        "{written}"
    );
    assert!(written.contains(r#"num_cycles="{@rounds}""#), "{written}");
}

const PATROL: &str = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
    <BehaviorTree ID="Main">
        <Sequence>
            <SubTree ID="Walk" name="first leg" target="{goal}" laps="3" speed="0.50" mood="calm" _autoremap="false"/>
            <SubTree ID="Walk" _autoremap="1"/>
        </Sequence>
    </BehaviorTree>
    <BehaviorTree ID="Walk">
        <MoveTo target="{target}"/>
    </BehaviorTree>
</root>
"#;

#[test]
fn a_subtree_runs_the_tree_its_id_names_with_its_ports_bound() {
    let x = read(PATROL).unwrap();
    let first = x.tree.node(&NodeId::new("first_leg")).unwrap();
    assert_eq!(first.kind, "SubTree");
    let field = |n: &crate::model::Node, f: &str| n.fields.get(f).cloned();
    assert_eq!(field(first, "asset"), Some(Value::Text("#Walk".into())));
    assert_eq!(field(first, "autoremap"), Some(Value::Bool(false)));
    assert_eq!(field(first, "target"), Some(Value::Key("goal".into())));
    assert_eq!(field(first, "laps"), Some(Value::Int(3)));
    assert_eq!(field(first, "speed"), Some(Value::Float(0.5)));
    assert_eq!(field(first, "mood"), Some(Value::Text("calm".into())));
    let second = x.tree.node(&NodeId::new("sub_tree")).unwrap();
    assert_eq!(field(second, "autoremap"), Some(Value::Bool(true)));
    // With no edit, every port is written as it was (`0.50`, `_autoremap="1"`).
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert_same(PATROL, &written);
    // The other tree of the file, read by its ID.
    let walk = super::read_named(PATROL, Some("Walk")).unwrap().tree;
    assert!(walk.nodes().iter().any(|n| n.kind == "MoveTo_own"));
    let e = super::read_named(PATROL, Some("Run")).unwrap_err();
    assert!(e.message.contains("no <BehaviorTree ID=\"Run\">"), "{e:?}");
}

#[test]
fn a_subtree_edited_is_written_as_behaviortree_cpp_reads_it() {
    let x = read(PATROL).unwrap();
    let mut nodes = x.tree.nodes().to_vec();
    for n in &mut nodes {
        if n.id.as_str() == "first_leg" {
            n.fields.insert("autoremap".into(), Value::Bool(true));
            n.fields.remove("mood");
            n.fields.insert("laps".into(), Value::Key("rounds".into()));
        }
        if n.id.as_str() == "sub_tree" {
            // Not set: a tree that declares no keys shares them (SEMANTICS.md §3.5).
            n.fields.remove("autoremap");
            n.fields.insert("asset".into(), Value::Text("#Run".into()));
        }
    }
    let tree = crate::model::Tree::from_nodes(nodes.clone()).unwrap();
    let written = write(&tree, Some(&x.source)).unwrap().0;
    assert!(
        written.contains(r#"<SubTree ID="Walk" name="first leg" target="{goal}" laps="{rounds}" speed="0.50" _autoremap="true"/>"#),
        "{written}"
    );
    assert!(
        written.contains(r#"<SubTree ID="Run" _autoremap="1"/>"#),
        "{written}"
    );
    for n in &mut nodes {
        if n.id.as_str() == "sub_tree" {
            n.fields
                .insert("asset".into(), Value::Text("walk.json".into()));
        }
    }
    let tree = crate::model::Tree::from_nodes(nodes).unwrap();
    let e = write(&tree, Some(&x.source)).unwrap_err();
    assert!(
        e.message
            .starts_with("[sub_tree] its asset 'walk.json' is a tree file"),
        "{e:?}"
    );
}

#[test]
fn an_asset_names_a_tree_of_an_xml_file_only_after_a_name_ending_in_xml() {
    use crate::io::split_asset;
    assert_eq!(split_asset("#Walk"), ("", Some("Walk")));
    assert_eq!(
        split_asset("lib/moves.xml#Walk"),
        ("lib/moves.xml", Some("Walk"))
    );
    assert_eq!(split_asset("odd#name.json"), ("odd#name.json", None));
    assert_eq!(split_asset("moves.xml#"), ("moves.xml#", None));
    assert_eq!(split_asset("#a#b"), ("", Some("a#b")));
    assert_eq!(split_asset("lib/m.XML#a#b"), ("lib/m.XML", Some("a#b")));
    assert_eq!(split_asset("#"), ("#", None));
    assert_eq!(split_asset("patrol.json"), ("patrol.json", None));
}

const V3: &str = r#"<root BTCPP_format="3" main_tree_to_execute="Main">
    <BehaviorTree ID="Main">
        <SequenceStar name="steps">
            <SubTree ID="Walk" target="goal" __shared_blackboard="false"/>
            <SubTreePlus ID="Walk" __autoremap="true"/>
            <Control ID="SequenceStar">
                <Beep _skipIf="loud"/>
            </Control>
        </SequenceStar>
    </BehaviorTree>
    <BehaviorTree ID="Walk">
        <MoveTo target="{target}"/>
    </BehaviorTree>
</root>
"#;

#[test]
fn a_format_3_file_is_read_as_format_4_with_a_note_for_each_change() {
    let x = read(V3).unwrap();
    let node = |id: &str| x.tree.node(&NodeId::new(id)).unwrap();
    assert_eq!(node("steps").kind, "SequenceWithMemory");
    assert_eq!(node("sequence_with_memory").kind, "SequenceWithMemory");
    assert_eq!(
        node("sub_tree").fields.get("target"),
        Some(&Value::Key("goal".into()))
    );
    assert_eq!(
        node("sub_tree").fields.get("autoremap"),
        Some(&Value::Bool(false))
    );
    assert_eq!(
        node("sub_tree_2").fields.get("autoremap"),
        Some(&Value::Bool(true))
    );
    assert_eq!(
        x.source.notes(),
        [
            "a BehaviorTree.CPP 3 file (BTCPP_format=\"3\"): read as format 4, and saved so",
            "line 3: <SequenceStar> is <SequenceWithMemory>",
            "line 4: <SubTree ID=\"Walk\">'s ports target name keys of the caller, written {key}",
            "line 4: <SubTree ID=\"Walk\">'s __shared_blackboard=\"false\" is dropped",
            "line 5: <SubTreePlus> is <SubTree>, its __autoremap _autoremap",
            "line 6: <Control ID=\"SequenceStar\"> is <Control ID=\"SequenceWithMemory\">",
            "line 7: <Beep>'s _skipIf was a port in format 3; format 4 reads it as a script",
        ]
    );
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    let expected = r#"<root BTCPP_format="4" main_tree_to_execute="Main">
    <BehaviorTree ID="Main">
        <SequenceWithMemory name="steps">
            <SubTree ID="Walk" target="{goal}"/>
            <SubTree ID="Walk" _autoremap="true"/>
            <Control ID="SequenceWithMemory">
                <Beep _skipIf="loud"/>
            </Control>
        </SequenceWithMemory>
    </BehaviorTree>
    <BehaviorTree ID="Walk">
        <MoveTo target="{target}"/>
    </BehaviorTree>
</root>
"#;
    assert_same(expected, &written);
    // Read again, it is a format 4 file: nothing to say.
    assert!(read(&written).unwrap().source.notes().is_empty());
}

#[test]
fn scripts_are_fields_that_validation_checks_not_notes() {
    // Script's `code`, Precondition's `if` and the hooks (`_onFailure`, `_while`) are
    // fields validation checks (`field-type`), with the node; reading says nothing.
    let x = read(
        r#"<root BTCPP_format="4">
  <BehaviorTree ID="A">
    <Sequence _skipIf="door_open">
      <Script code="tries += 1"/>
      <Precondition if="battery &gt;" else="FAILURE">
        <Action ID="Script" code="x := 'open"/>
      </Precondition>
      <Beep _post="ok := true" _onFailure="1 +" _while="1 +"/>
    </Sequence>
  </BehaviorTree>
</root>"#,
    )
    .unwrap();
    assert!(x.source.notes().is_empty(), "{:?}", x.source.notes());
    let beep = x.tree.node(&NodeId::new("beep")).unwrap();
    assert_eq!(beep.fields.get("_while"), Some(&Value::Text("1 +".into())));
}

#[test]
fn a_delay_is_arbors_delay_in_seconds_and_written_back_in_milliseconds() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="A">
    <Delay delay_msec="1500">
      <AlwaysSuccess/>
    </Delay>
  </BehaviorTree>
</root>
"#;
    let x = read(text).unwrap();
    let delay = x.tree.node(&NodeId::new("delay")).unwrap();
    assert_eq!(delay.kind, "Delay");
    assert_eq!(delay.fields.get("seconds"), Some(&Value::Float(1.5)));
    let tree = with_field(&x.tree, "delay", "seconds", Value::Float(0.25));
    let written = write(&tree, Some(&x.source)).unwrap().0;
    assert!(written.contains(r#"<Delay delay_msec="250">"#), "{written}");
    let e = read(&text.replace("1500", "0")).unwrap_err();
    assert!(e.message.contains("0 ms"), "{e:?}");
}

#[test]
fn parallel_all_is_a_parallel_of_all_and_all_and_written_back_as_read() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="A">
    <ParallelAll max_failures="1" name="both">
      <AlwaysSuccess/>
      <AlwaysFailure/>
    </ParallelAll>
  </BehaviorTree>
</root>
"#;
    let x = read(text).unwrap();
    let both = x.tree.node(&NodeId::new("both")).unwrap();
    assert_eq!(both.kind, "Parallel");
    assert_eq!(both.fields.get("success"), Some(&Value::Text("all".into())));
    assert_eq!(both.fields.get("failure"), Some(&Value::Text("all".into())));
    assert_eq!(both.linked(Port::Children).len(), 2);
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert_same(text, &written);
    let tree = with_field(&x.tree, "both", "failure", Value::Text("one".into()));
    let e = write(&tree, Some(&x.source)).unwrap_err();
    assert!(e.message.contains("ParallelAll has no form for"), "{e:?}");
    let e = read(&text.replace("max_failures=\"1\"", "max_failures=\"2\"")).unwrap_err();
    assert!(e.message.contains("with max_failures 1 only"), "{e:?}");
}

/// `tree` with node `id`'s field `field` set to `value`.
fn with_field(
    tree: &crate::model::Tree,
    id: &str,
    field: &str,
    value: Value,
) -> crate::model::Tree {
    let mut nodes = tree.nodes().to_vec();
    for n in nodes.iter_mut().filter(|n| n.id.as_str() == id) {
        n.fields.insert(field.into(), value.clone());
    }
    crate::model::Tree::from_nodes(nodes).unwrap()
}

#[test]
fn set_blackboard_is_set_key_writing_its_output_key() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="A">
    <SetBlackboard value="{other}" output_key="goal"/>
  </BehaviorTree>
</root>
"#;
    let x = read(text).unwrap();
    let set = x.tree.node(&NodeId::new("set_blackboard")).unwrap();
    assert_eq!(set.kind, "SetKey");
    assert_eq!(set.fields.get("value"), Some(&Value::Key("other".into())));
    assert_eq!(
        set.fields.get("out_context"),
        Some(&Value::Text("goal".into()))
    );
    let tree = with_field(
        &x.tree,
        "set_blackboard",
        "out_context",
        Value::Text("target".into()),
    );
    let tree = with_field(
        &tree,
        "set_blackboard",
        "value",
        Value::Text("kitchen".into()),
    );
    let written = write(&tree, Some(&x.source)).unwrap().0;
    assert!(
        written.contains(r#"<SetBlackboard value="kitchen" output_key="target"/>"#),
        "{written}"
    );
    let e = read(&text.replace("\"goal\"", "\"odd key\"")).unwrap_err();
    assert!(e.message.contains("output_key"), "{e:?}");
    let e = read(&text.replace("\"goal\"", "\"{goal}\"")).unwrap_err();
    assert!(e.message.contains("names its key itself"), "{e:?}");
}

#[test]
fn a_kind_of_the_files_own_named_as_an_arbor_built_in_is_its_own() {
    // Nav2's Wait and the tutorial's OpenDoor are the file's kinds; Sleep is Arbor's Wait;
    // MockAction keeps its meaning; a name that ends in the mark is marked again.
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="A">
    <Sequence>
      <Wait wait_duration="5.0"/>
      <Action ID="OpenDoor" door="{front}"/>
      <Sleep msec="100"/>
      <MockAction script="S"/>
      <Wait_own/>
      <Door_own/>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let x = read(text).unwrap();
    let kinds: Vec<&str> = x.tree.nodes()[2..]
        .iter()
        .map(|n| n.kind.as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "Wait_own",
            "OpenDoor_own",
            "Wait",
            "MockAction",
            "Wait_own_own",
            "Door_own"
        ]
    );
    assert_eq!(
        write(&x.tree, Some(&x.source)).unwrap().0,
        format!("{text}\n")
    );
    // Written afresh, each is its name in the file again.
    let fresh = write(&x.tree, None).unwrap().0;
    for element in [
        "<Wait wait_duration",
        "<OpenDoor door",
        "<Sleep msec",
        "<Wait_own/>",
        "<Door_own/>",
    ] {
        assert!(fresh.contains(element), "{element} in {fresh}");
    }
}

#[test]
fn hooks_are_fields_of_any_node_and_written_back_where_they_were() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence _successIf="done" _uid="3">
      <Script code="n := 1" _post="n += 1"/>
      <ParallelAll _onHalted="stopped := 1">
        <Beep loud="{noise}" _failureIf="quiet" _onFailure="n := 0"/>
      </ParallelAll>
      <SubTree ID="Inner" _onSuccess="ok := 1" target="{goal}"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Inner">
    <AlwaysSuccess/>
  </BehaviorTree>
</root>"#;
    let x = read(text).unwrap();
    let node = |id: &str| x.tree.node(&NodeId::new(id)).unwrap();
    let text_of = |id: &str, f: &str| node(id).fields.get(f).cloned();
    let t = |s: &str| Some(Value::Text(s.into()));
    assert_eq!(text_of("sequence", "_successIf"), t("done"));
    assert_eq!(text_of("script", "_post"), t("n += 1"));
    assert_eq!(text_of("parallel_all", "_onHalted"), t("stopped := 1"));
    assert_eq!(text_of("beep", "_failureIf"), t("quiet"));
    assert_eq!(text_of("beep", "_onFailure"), t("n := 0"));
    assert_eq!(text_of("sub_tree", "_onSuccess"), t("ok := 1"));
    // A SubTree's hook binds no key of the tree it runs.
    assert_eq!(
        crate::model::open_bindings(node("sub_tree"))
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        ["target"]
    );
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert_same(text, &written);
    // An edit of one hook changes that attribute only; a hook cleared is dropped; one
    // added to a node made in Arbor is written on it.
    let tree = with_field(
        &x.tree,
        "beep",
        "_failureIf",
        Value::Text("quiet || n > 2".into()),
    );
    let mut nodes = tree.nodes().to_vec();
    for n in &mut nodes {
        if n.id.as_str() == "script" {
            n.fields.remove("_post");
        }
    }
    let tree = crate::model::Tree::from_nodes(nodes).unwrap();
    let written = write(&tree, Some(&x.source)).unwrap().0;
    let expected = text
        .replace(r#"_failureIf="quiet""#, r#"_failureIf="quiet || n > 2""#)
        .replace(r#" _post="n += 1""#, "");
    assert_same(&expected, &written);
    let mut fresh = crate::model::Node::new("wait", "AlwaysFailure");
    fresh
        .fields
        .insert("_onFailure".into(), Value::Text("n := 7".into()));
    let mut nodes = x.tree.nodes().to_vec();
    nodes.push(fresh);
    for n in &mut nodes {
        if n.id.as_str() == "sequence" {
            n.inputs
                .get_mut(&Port::Children)
                .unwrap()
                .push(NodeId::new("wait"));
        }
    }
    let tree = crate::model::Tree::from_nodes(nodes).unwrap();
    let written = write(&tree, Some(&x.source)).unwrap().0;
    assert!(
        written.contains(r#"<AlwaysFailure _onFailure="n := 7"/>"#),
        "{written}"
    );
}

#[test]
fn run_once_then_skip_is_true_when_not_written_and_written_back_as_it_was() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <RunOnce><AlwaysSuccess/></RunOnce>
      <RunOnce then_skip="false"><AlwaysSuccess/></RunOnce>
      <RunOnce then_skip="1"><AlwaysSuccess/></RunOnce>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let x = read(text).unwrap();
    let flag = |id: &str| {
        x.tree
            .node(&NodeId::new(id))
            .unwrap()
            .fields
            .get("then_skip")
            .cloned()
    };
    assert_eq!(
        flag("run_once"),
        Some(Value::Bool(true)),
        "BehaviorTree.CPP's default"
    );
    assert_eq!(flag("run_once_2"), Some(Value::Bool(false)));
    assert_eq!(flag("run_once_3"), Some(Value::Bool(true)));
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert_same(text, &written);
    // A RunOnce made in Arbor, its then_skip at Arbor's default (false), says so.
    let mut once = crate::model::Node::new("once", "RunOnce");
    once.inputs.insert(Port::Child, vec![NodeId::new("ok")]);
    let tree = crate::model::Tree::from_nodes(vec![
        {
            let mut root = crate::model::Node::new("root", "Root");
            root.inputs.insert(Port::Child, vec![NodeId::new("once")]);
            root
        },
        once,
        crate::model::Node::new("ok", "AlwaysSuccess"),
    ])
    .unwrap();
    let written = write(&tree, None).unwrap().0;
    assert!(
        written.contains(r#"<RunOnce then_skip="false">"#),
        "{written}"
    );
}

#[test]
fn an_entry_is_a_key_named_either_way_and_written_back_as_it_was() {
    let text = r#"<root BTCPP_format="4">
  <BehaviorTree ID="Main">
    <Sequence>
      <WasEntryUpdated entry="{goal}"/>
      <SkipUnlessUpdated entry="goal"><AlwaysSuccess/></SkipUnlessUpdated>
      <WaitValueUpdate entry="{@goal}"><AlwaysSuccess/></WaitValueUpdate>
    </Sequence>
  </BehaviorTree>
</root>"#;
    let x = read(text).unwrap();
    for id in [
        "was_entry_updated",
        "skip_unless_updated",
        "wait_value_update",
    ] {
        let node = x.tree.node(&NodeId::new(id)).unwrap();
        assert_eq!(
            node.fields.get("entry"),
            Some(&Value::Text("goal".into())),
            "{id}"
        );
    }
    let written = write(&x.tree, Some(&x.source)).unwrap().0;
    assert_same(text, &written);
    let tree = with_field(
        &x.tree,
        "skip_unless_updated",
        "entry",
        Value::Text("other".into()),
    );
    let written = write(&tree, Some(&x.source)).unwrap().0;
    assert!(
        written.contains(r#"<SkipUnlessUpdated entry="{other}">"#),
        "{written}"
    );
}

/// `written` is the same XML document as `expected` (elements, attributes and text, in
/// order; whitespace and attribute order aside).
#[track_caller]
fn assert_same(expected: &str, written: &str) {
    assert!(
        Document::parse(expected)
            .unwrap()
            .same_as(&Document::parse(written).unwrap()),
        "{written}"
    );
}
