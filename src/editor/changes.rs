//! Every change of the editor's state asked for while a frame is drawn — a command, an
//! edit from the canvas or the inspector, a new selection — goes into one queue, applied
//! in the order asked, in one place, after the frame is drawn (`EditorApp::run_queue`).
//! Drawing only reads the state.

use super::commands::Command;
use super::graph::{Attach, Selecting};
use super::inspector::Request;
use crate::model::{Edit, NodeId};

/// One change asked for.
pub(super) enum Change {
    /// Run a command (a key, a menu, a button, the palette).
    Command(Command),
    /// Run a command on this node (its right-click menu): it is selected first.
    CommandOn(Command, NodeId),
    /// Apply an edit as one undo step.
    Edit(Edit),
    /// Apply an edit to a node's field; consecutive ones on the same field merge into one
    /// undo step (typing, dragging a value).
    Coalesced(Edit, NodeId, String),
    /// Change the selection as a canvas gesture asks.
    Select(Selecting),
    /// Add a node of this kind near a graph position, linked as `Attach` says.
    Add(String, [f32; 2], Attach),
    /// Paste the clipboard at a graph position.
    PasteAt([f32; 2]),
    /// Set what a node's breakpoint breaks on.
    BreakOn(NodeId, crate::debug::BreakOn),
    /// Force a stand-in's result (`None`: its script again).
    Force(NodeId, Option<crate::runtime::Outcome>),
    /// Make a node another kind (Change Kind…), as one undo step.
    NewKind(NodeId, String),
    /// What the inspector asked for the node it shows.
    Inspect(NodeId, Request),
    /// Select this node and centre the view on it (Find Node, a problem).
    Focus(NodeId),
    /// Show this step of the run (Go to Step…).
    GoToStep(u64),
    /// Attach to the BehaviorTree.CPP program at this address (Attach to
    /// BehaviorTree.CPP…).
    AttachProgram(crate::remote::groot2::PublisherAddress),
    /// Rename a key (its declaration and every use in the tree), as the Blackboard asks.
    RenameKey(String, String),
    /// List and select the nodes that use a key (the Blackboard's Find usages).
    FindUsages(String),
    /// Say why a gesture was refused.
    Refused(String),
    /// Change the run debugged as the Simulation panel asks.
    Sim(SimChange),
}

/// What the Simulation panel asks of the run it shows (its buttons call commands; these
/// carry what the panel chose).
pub(super) enum SimChange {
    /// Show this step (the timeline), and stop running.
    Seek(u64),
    /// Watch this agent (by place: the Watch list, a click in the arena).
    Watch(usize),
    /// Ask the game shown live to stream this agent.
    Stream(String),
    /// Trigger the watched agent's Interrupt (its id), with this payload (blank: none).
    Trigger(String, String),
    /// Show a game of the listener live, or the tree's own run again.
    Attach(super::simulate::GameChoice),
    /// Show the history of the watched agent's key (`None`: close it).
    History(Option<String>),
}
