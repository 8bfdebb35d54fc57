//! A running BehaviorTree.CPP program, attached to from the editor: File > Attach to
//! BehaviorTree.CPP… (a field for the address of its Groot2Publisher) or `arbor edit
//! --attach ADDRESS`. A [`Bridge`] watches the program and shows it to this editor's own
//! listener as a game, which is then shown live as soon as it comes: lit, logged, on the
//! timeline, with its blackboard in the context panel, held by breakpoints (docs/BTCPP.md,
//! "Live attach"). What the bridge has to say (waiting for the program, lost it, found it
//! again) goes to the status line.

use super::EditorApp;
use super::changes::Change;
use super::field::Look;
use crate::remote::groot2::{Bridge, DEFAULT_PORT, Polling, PublisherAddress, game_name};

/// The program attached to, or to attach to once the window is up.
#[derive(Default)]
pub struct ProgramAttach {
    bridge: Option<Bridge>,
    /// Asked for before the window's first frame (`--attach`): attached to then, when
    /// the window can be woken by the bridge's news.
    asked: Option<PublisherAddress>,
    /// The address typed last, offered again.
    last: Option<String>,
    /// How the program is polled.
    polling: Polling,
}

impl ProgramAttach {
    /// The address of the program attached to, if one is.
    pub fn address(&self) -> Option<&PublisherAddress> {
        self.bridge.as_ref().map(Bridge::address)
    }
}

impl EditorApp {
    /// Attaches to the BehaviorTree.CPP program whose Groot2Publisher listens at
    /// `address` (replacing one attached before); it is shown live as soon as it answers.
    /// Before the window's first frame, it is asked for then.
    pub fn attach_program(&mut self, address: PublisherAddress) {
        let Some(live) = &mut self.live else {
            self.say_problem(
                "Live attach is off (arbor edit --listen off): a BehaviorTree.CPP program is shown through it",
            );
            return;
        };
        live.program.last = Some(address.to_string());
        let Some(woken) = live.waker().cloned() else {
            live.program.asked = Some(address);
            return;
        };
        let editor = live.listener().address().clone();
        // The program attached before goes on without its hooks.
        live.program.bridge = None;
        let started = Bridge::start(address.clone(), editor, live.program.polling, move || {
            woken.request_repaint();
        });
        match started {
            Ok(bridge) => {
                live.program.bridge = Some(bridge);
                self.show_game_when_it_comes(&game_name(&address));
                self.say(format!("Attaching to BehaviorTree.CPP at {address}…"));
            }
            Err(e) => self.say_problem(format!("Cannot attach to {address}: {e}")),
        }
    }

    /// How a program attached to from now on is polled (`arbor edit --hz`).
    pub fn set_program_polling(&mut self, polling: Polling) {
        if let Some(live) = &mut self.live {
            live.program.polling = polling;
        }
    }

    /// The program attached to, if one is.
    pub fn program(&self) -> Option<&ProgramAttach> {
        self.live.as_ref().map(|l| &l.program)
    }

    /// Each frame: an attach asked for before the window was up is made, and what the
    /// bridge says goes to the status line.
    pub(super) fn program_news(&mut self) {
        let Some(live) = &mut self.live else { return };
        if let Some(address) = live.program.asked.take() {
            self.attach_program(address);
            return;
        }
        let Some(bridge) = &live.program.bridge else {
            return;
        };
        let news = bridge.take_news();
        if !bridge.is_running() {
            live.program.bridge = None;
        }
        for n in news {
            if n.starts_with("Attached") {
                self.say(n);
            } else {
                self.say_problem(n);
            }
        }
    }

    /// File > Attach to BehaviorTree.CPP…: the address field, holding the address typed
    /// last (the publisher's usual port on this machine at first).
    pub(super) fn ask_program_address(&mut self) {
        self.go_to.open = false;
        let last = self.program().and_then(|p| p.last.clone());
        let text = last.unwrap_or_else(|| format!("127.0.0.1:{DEFAULT_PORT}"));
        self.attach_field.show_with(&text);
    }

    /// Draws the address field over the canvas and queues what it asks for.
    pub(super) fn program_field_ui(&mut self, ctx: &eframe::egui::Context) {
        let Some(area) = self.canvas.area() else {
            return;
        };
        let look = Look {
            id: "attach-to-program",
            label: "Attach to BehaviorTree.CPP at",
            hint: format!("PORT or HOST:PORT ({DEFAULT_PORT})"),
            note: "its Groot2Publisher's port".to_owned(),
            go: "Watch the program (Enter)",
            width: 180.0,
        };
        match self.attach_field.ui(
            ctx,
            area,
            self.find.open,
            &look,
            str::parse::<PublisherAddress>,
        ) {
            Some(Ok(address)) => self.queue.push(Change::AttachProgram(address)),
            Some(Err(why)) => self.queue.push(Change::Refused(why)),
            None => {}
        }
    }
}
