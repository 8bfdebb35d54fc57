//! A BehaviorTree.CPP program shown in the editor, live: a [`Bridge`] thread watches the
//! program through its Groot2Publisher ([`Watch`]) and speaks Arbor's live protocol to the
//! editor's [`Listener`](crate::remote::Listener) on its behalf, as a game would
//! (docs/PROTOCOL.md). So the debugger shows the program as it shows a game
//! — lights, event log, timeline and step back over what was seen, the context panel —
//! and its breakpoints, Pause, Step and Continue hold the program itself.
//!
//! The program is a game named `BehaviorTree.CPP at ADDRESS` with one agent, named as its
//! tree; its hello carries the tree's XML, and a node library of the kinds its models
//! describe that Arbor does not know. A program that stops answering ends the game's
//! connection; the bridge then waits for it and, when it answers again, connects again:
//! the editor shows its new run. The program is never held by an editor that went away:
//! every hook is taken away when the editor closes the connection or says nothing for
//! [`RELEASE_AFTER`](crate::remote::RELEASE_AFTER), and when the bridge is dropped.

use std::io::{BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::client::{Fault, Groot2Error, PublisherAddress};
use super::watch::Watch;
use crate::debug::{BreakOn, GameCommand};
use crate::remote::protocol::{
    EditorSays, GameSays, Hello, LIVE_VERSION, LinkSays, MAX_MESSAGE, SentLibrary, SentTree,
    line_of, read_line,
};
use crate::remote::{EditorAddress, RELEASE_AFTER, lock};

/// How often a program that does not answer is looked for again.
pub const LOOK_EVERY: Duration = Duration::from_millis(500);

/// How a bridge polls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Polling {
    /// Polls a second.
    pub hz: f64,
    /// How long a request waits for the program's answer.
    pub within: Duration,
}

impl Polling {
    /// Polls `hz` times a second, each request waiting at most `within`; `Err` says why
    /// `hz` cannot be (0.1 to 1,000).
    pub fn new(hz: f64, within: Duration) -> Result<Self, String> {
        if !(hz.is_finite() && (0.1..=1000.0).contains(&hz)) {
            return Err(format!(
                "a program is polled 0.1 to 1000 times a second, not {hz}"
            ));
        }
        Ok(Self { hz, within })
    }

    /// The time between two polls.
    pub fn every(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.hz.clamp(0.1, 1000.0))
    }
}

impl Default for Polling {
    fn default() -> Self {
        Self {
            hz: 20.0,
            within: Duration::from_secs(2),
        }
    }
}

/// A program shown in the editor: see the module's documentation. Dropping it takes the
/// program's hooks away and stops the thread.
pub struct Bridge {
    address: PublisherAddress,
    stop: Arc<AtomicBool>,
    news: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
}

/// The name the program is listed under in the editor's Game list.
pub fn game_name(address: &PublisherAddress) -> String {
    format!("BehaviorTree.CPP at {address}")
}

impl Bridge {
    /// Watches the program at `address` and shows it to the editor listening at `editor`,
    /// polling as `polling` says; `wake` is called when there is news to say.
    pub fn start(
        address: PublisherAddress,
        editor: EditorAddress,
        polling: Polling,
        wake: impl Fn() + Send + 'static,
    ) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let news = Arc::new(Mutex::new(Vec::new()));
        let run = Run {
            address: address.clone(),
            editor,
            polling,
            stop: stop.clone(),
            news: news.clone(),
            wake: Box::new(wake),
        };
        let thread = std::thread::Builder::new()
            .name("arbor-groot2".into())
            .spawn(move || run.go())?;
        Ok(Self {
            address,
            stop,
            news,
            thread: Some(thread),
        })
    }

    /// The program's address.
    pub fn address(&self) -> &PublisherAddress {
        &self.address
    }

    /// What the bridge has to say since the last call (waiting for the program, lost it,
    /// found it again), for the status line.
    pub fn take_news(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.news))
    }

    /// Whether the thread still runs (it ends when the editor goes away, or the program
    /// speaks another protocol).
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for Bridge {
    /// Tells the thread to stop without waiting for it: it takes its hooks away and ends
    /// within a poll, and the editor goes on meanwhile.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        drop(self.thread.take());
    }
}

/// The bridge's thread.
struct Run {
    address: PublisherAddress,
    editor: EditorAddress,
    polling: Polling,
    stop: Arc<AtomicBool>,
    news: Arc<Mutex<Vec<String>>>,
    wake: Box<dyn Fn() + Send>,
}

/// Why a session with the program ended.
enum Ended {
    /// The bridge was stopped, or the editor went away: nothing more to do.
    Done,
    /// The program stopped answering: look for it again.
    Lost(Groot2Error),
}

impl Run {
    fn say(&self, news: String) {
        let mut n = lock(&self.news);
        if n.len() < 16 {
            n.push(news);
        }
        drop(n);
        (self.wake)();
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Attaches, shows, and attaches again after the program went, until stopped.
    fn go(self) {
        let mut lost = false;
        while !self.stopped() {
            let found = Watch::attach_when_there(
                &self.address,
                self.polling.within,
                LOOK_EVERY,
                || self.stopped(),
                |e| {
                    if !lost {
                        self.say(format!("Waiting for BehaviorTree.CPP: {e}"));
                    }
                },
            );
            let (mut watch, first) = match found {
                Ok(Some(w)) => w,
                Ok(None) => return,
                Err(e) if e.fault == Fault::Version => {
                    self.say(e.message);
                    return;
                }
                Err(e) => {
                    self.say(e.message);
                    self.sleep(LOOK_EVERY * 4);
                    continue;
                }
            };
            let ended = self.show(&mut watch, &first);
            // The program goes on: no hook of this watch is left to hold it.
            let _ = watch.detach();
            match ended {
                Ended::Done => return,
                Ended::Lost(e) => {
                    self.say(format!("{e}: its run ends here; waiting for it again"));
                    lost = true;
                }
            }
        }
    }

    /// Sleeps `d`, or less when stopped.
    fn sleep(&self, d: Duration) {
        let until = Instant::now() + d;
        while !self.stopped() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20).min(d));
        }
    }

    /// Shows the program watched to the editor until it stops answering, the editor goes
    /// away or the bridge is stopped.
    fn show(&self, watch: &mut Watch, first: &[crate::io::TracedEvent]) -> Ended {
        let mut editor = match self.connect(watch) {
            Ok(c) => c,
            Err(e) => {
                self.say(format!(
                    "BehaviorTree.CPP at {} cannot be shown: {e}",
                    self.address
                ));
                return Ended::Done;
            }
        };
        self.say(format!("Attached to {} at {}", watch.name(), self.address));
        let agent = serde_json::to_string(watch.name()).unwrap_or_default();
        let mut lines = String::new();
        let write = |editor: &mut TcpStream, lines: &mut String| {
            let ok = editor.write_all(lines.as_bytes()).is_ok();
            lines.clear();
            ok
        };
        for e in first {
            crate::runtime::format_event(&mut lines, &agent, &e.as_event());
            lines.push('\n');
        }
        if !write(&mut editor.stream, &mut lines) {
            return Ended::Done;
        }
        let every = self.polling.every();
        let mut next = Instant::now() + every;
        let mut heard = Instant::now();
        let mut said_kinds = false;
        loop {
            if self.stopped() {
                return Ended::Done;
            }
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
            // A slow poll is not made up for with polls in a row.
            next = (next + every).max(Instant::now());
            // What the editor said.
            loop {
                match editor.said.try_recv() {
                    Ok(EditorSays::Link(LinkSays::Alive {})) => heard = Instant::now(),
                    Ok(EditorSays::Link(_)) => {}
                    Ok(EditorSays::Command(c)) => {
                        heard = Instant::now();
                        if let Err(e) = self.command(watch, c, &mut said_kinds) {
                            return Ended::Lost(e);
                        }
                    }
                    Err(TryRecvError::Empty) => break,
                    // The editor went away: the program goes on.
                    Err(TryRecvError::Disconnected) => return Ended::Done,
                }
            }
            if heard.elapsed() > RELEASE_AFTER
                && watch.held()
                && let Err(e) = watch.go_on()
            {
                // An editor that says nothing does not hold the program.
                return Ended::Lost(e);
            }
            let polled = match watch.poll() {
                Ok(p) => p,
                Err(e) => return Ended::Lost(e),
            };
            for e in &polled.events {
                crate::runtime::format_event(&mut lines, &agent, &e.as_event());
                lines.push('\n');
            }
            if polled.held.is_some() {
                let paused = line_of(&GameSays::Paused(watch.name().to_owned()));
                lines.push_str(&String::from_utf8_lossy(&paused));
            }
            if !lines.is_empty() && !write(&mut editor.stream, &mut lines) {
                return Ended::Done;
            }
        }
    }

    /// Does what the debugger asks of the program.
    fn command(
        &self,
        watch: &mut Watch,
        command: GameCommand,
        said: &mut bool,
    ) -> Result<(), Groot2Error> {
        match command {
            GameCommand::Breakpoints(list) => {
                let (enter, other): (Vec<_>, Vec<_>) =
                    list.iter().partition(|b| b.on == BreakOn::Enter);
                if !other.is_empty() && !*said {
                    self.say(
                        "A BehaviorTree.CPP program is held only by breakpoints on enter; the others stop the view as the program runs on".to_owned(),
                    );
                    *said = true;
                }
                watch.set_breakpoints(enter.iter().map(|b| b.node.as_str()))?;
            }
            GameCommand::Step(_) => watch.step()?,
            GameCommand::Pause(_) => watch.pause()?,
            GameCommand::Continue(_) => watch.go_on()?,
            GameCommand::Trigger(t) => self.say(format!(
                "A BehaviorTree.CPP program takes no triggers: '{}' is not given",
                t.id
            )),
            GameCommand::Stream(_) => {}
            GameCommand::Force(f) => {
                if !watch.force(&f.node, f.status)? {
                    self.say(format!("The program has no node '{}' to force", f.node));
                }
            }
        }
        Ok(())
    }

    /// Connects to the editor as the program's game and says its hello.
    fn connect(&self, watch: &Watch) -> Result<Editor, String> {
        let mut addr = self.editor.addr;
        if addr.ip().is_unspecified() {
            addr = SocketAddr::from((Ipv4Addr::LOCALHOST, addr.port()));
        }
        let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .map_err(|e| format!("the editor's listener does not answer: {e}"))?;
        let tree = format!("{}.xml", watch.name());
        let hello = Hello {
            arbor_live: LIVE_VERSION,
            token: self.editor.token.clone(),
            game: game_name(&self.address),
            run: watch.header(&tree),
            trees: vec![SentTree {
                path: tree,
                text: watch.xml().to_owned(),
            }],
            libraries: own_kinds(watch),
            streamed: None,
            forces: true,
        };
        stream
            .write_all(&line_of(&hello))
            .map_err(|e| format!("the editor's listener took no hello: {e}"))?;
        let reading = stream
            .try_clone()
            .map_err(|e| format!("the connection cannot be read: {e}"))?;
        let _ = reading.set_read_timeout(Some(Duration::from_secs(5)));
        let mut reader = BufReader::new(reading);
        let mut buf = Vec::new();
        read_line(&mut reader, MAX_MESSAGE, &mut buf)?;
        match serde_json::from_slice::<EditorSays>(&buf) {
            Ok(EditorSays::Link(LinkSays::Welcome {})) => {}
            Ok(EditorSays::Link(LinkSays::Refused(why))) => return Err(why),
            _ => return Err("the editor did not welcome it".into()),
        }
        let _ = reader.get_ref().set_read_timeout(None);
        let (send, said) = channel();
        std::thread::Builder::new()
            .name("arbor-groot2-editor".into())
            .spawn(move || {
                let mut buf = Vec::new();
                while let Ok(true) = read_line(&mut reader, MAX_MESSAGE, &mut buf) {
                    let Ok(says) = serde_json::from_slice::<EditorSays>(&buf) else {
                        break;
                    };
                    if send.send(says).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| e.to_string())?;
        Ok(Editor { stream, said })
    }
}

/// The connection to the editor: written by the bridge's thread, read by one of its own.
struct Editor {
    stream: TcpStream,
    said: Receiver<EditorSays>,
}

impl Drop for Editor {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
    }
}

/// The kinds the program's models describe that Arbor's built-in kinds do not, as the
/// node library its hello carries (none when there are none, or the models do not read).
fn own_kinds(watch: &Watch) -> Vec<SentLibrary> {
    // A library's name is letters, digits and `_`, not starting with a digit.
    let name: String = format!("{}_models", watch.name())
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let name = match name.starts_with(|c: char| c.is_ascii_digit()) {
        true => format!("_{name}"),
        false => name,
    };
    let path = std::path::Path::new("program.xml");
    let Ok((mut library, _)) = crate::io::btcpp::models_library(watch.xml(), path, &name) else {
        return Vec::new();
    };
    let builtin = crate::model::Catalog::builtin();
    library.kinds.retain(|k| builtin.kind(&k.name).is_none());
    if library.kinds.is_empty() {
        return Vec::new();
    }
    library
        .to_text()
        .map(|text| {
            vec![SentLibrary {
                name: library.name.clone(),
                text,
            }]
        })
        .unwrap_or_default()
}
