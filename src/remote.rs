//! Live attach (feature `remote`): a game sends what its agents do to the editor while it
//! runs, and the editor shows it as it comes, with the timeline to scrub back through it.
//!
//! The game connects out ([`GameLink::connect`]), in a background thread that keeps
//! retrying while no editor listens, so the order in which the two start does not matter.
//! It sends a [`Hello`] (its name, the header of its run, the text of its trees, its node
//! library when it has kinds of its own), then,
//! for each agent it watches, the agent's events as trace lines (docs/FORMAT.md,
//! "Traces"). The game never waits for the editor: a watched agent's events of a step go
//! through a bounded queue ([`QUEUE_STEPS`]) as one message, which the link's thread
//! takes every few milliseconds (so queueing never wakes a thread); when the queue is
//! full they are dropped and counted, and the count is sent (`{"dropped":N}`), never the
//! game's frame. Nothing is gathered while no editor listens.
//!
//! The editor listens ([`Listener`]) on the loopback address unless told otherwise. A
//! message longer than its bound, a line that is not an event, or a game that goes away
//! mid-step ends that game's connection with a problem said; the editor and the other
//! games go on. Nothing a message says is executed: it is parsed as data.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::io::{AgentIndex, MAX_TRACE_AGENTS, MAX_TRACE_LINE, TracedEvent, parse_event};
use crate::runtime::{Event, Observer, TraceHeader};

/// The port the editor listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 47_801;

/// The longest first message a game may send (it carries its trees' and libraries' text).
pub const MAX_HELLO: usize = 8 * 1024 * 1024;

/// Steps of watched agents a game queues for the editor before it drops their events.
pub const QUEUE_STEPS: usize = 4_096;

/// Events the editor keeps of one game (about 90 MB); past this it stops recording that
/// game and says so.
pub const MAX_KEPT_EVENTS: usize = 1_000_000;

/// The text of one game's events the editor keeps, at most.
pub const MAX_KEPT_BYTES: usize = 256 << 20;

/// Connections open at once; one past this is closed at once.
pub const MAX_GAMES: usize = 16;

/// Games the editor lists, connected or ended; a connection past this is closed at once.
pub const MAX_LISTED: usize = 64;

/// The version of the messages a [`Hello`] names.
pub const LIVE_VERSION: u32 = 1;

/// What a game says first.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// The messages' version ([`LIVE_VERSION`]).
    pub arbor_live: u32,
    /// The game's name, as the editor lists it.
    pub game: String,
    /// Its run: dt, seed, the agents it may send with their tree files, the files' digests.
    pub run: TraceHeader,
    /// The text of its tree files, for an editor that does not have them.
    #[serde(default)]
    pub trees: Vec<SentTree>,
    /// Its node libraries (the kinds its code registers), for the editor to show its
    /// trees with and to compare with the project's library files.
    #[serde(default)]
    pub libraries: Vec<SentLibrary>,
}

impl Hello {
    /// A game's hello: its name, `dt`, `seed`, its agents with the tree file each runs, and
    /// the files to name with their digests (its trees, first), by absolute paths (the
    /// editor's working folder is not the game's); with each tree's text.
    pub fn new(
        game: &str,
        dt: f64,
        seed: u64,
        agents: &[(String, std::path::PathBuf)],
        files: &[std::path::PathBuf],
    ) -> Self {
        let absolute =
            |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
        let agents: Vec<(String, std::path::PathBuf)> = agents
            .iter()
            .map(|(n, t)| (n.clone(), absolute(t)))
            .collect();
        let files: Vec<std::path::PathBuf> = files.iter().map(|f| absolute(f)).collect();
        let mut run = crate::io::trace_header(dt, seed, &agents, &files, None);
        for (a, (_, tree)) in run.agents.iter_mut().zip(&agents) {
            a.tree = tree.display().to_string();
        }
        for (f, path) in run.files.iter_mut().zip(&files) {
            f.path = path.display().to_string();
        }
        let trees = files
            .iter()
            .filter_map(|f| {
                Some(SentTree {
                    path: f.display().to_string(),
                    text: std::fs::read_to_string(f).ok()?,
                })
            })
            .collect();
        Self {
            arbor_live: LIVE_VERSION,
            game: game.to_owned(),
            run,
            trees,
            libraries: Vec::new(),
        }
    }

    /// The hello with the game's node library: the kinds its code registers, as
    /// [`Library::from_catalog`](crate::io::Library::from_catalog) makes it. `Err` names a
    /// field a library cannot describe.
    pub fn with_library(mut self, library: &crate::io::Library) -> Result<Self, String> {
        self.libraries.push(SentLibrary {
            name: library.name.clone(),
            text: library.to_text()?,
        });
        Ok(self)
    }
}

/// A tree file's text, as a game sends it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentTree {
    /// Its path, as the run's header names it.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// A node library, as a game sends it: the text of its library file.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentLibrary {
    /// The library's name.
    pub name: String,
    /// Its text, as a `NAME.nodes.json` file holds it (docs/FORMAT.md, "Node libraries").
    pub text: String,
}

// ---- the game's side ------------------------------------------------------------------

/// A game's link to the editor: a background thread that connects (and reconnects) and
/// sends what [`GameLink::watch`] observers give it. Dropping it stops the thread.
pub struct GameLink {
    tx: SyncSender<String>,
    shared: Arc<LinkState>,
    thread: Option<JoinHandle<()>>,
}

/// What the game's thread and the link share.
#[derive(Default)]
struct LinkState {
    stop: AtomicBool,
    connected: AtomicBool,
    dropped: AtomicU64,
    /// Whether the editor set any breakpoint (so an event is checked against them only
    /// then), whether any agent is paused (so asking costs one load while none is), and
    /// what the editor asked for.
    breaking: AtomicBool,
    pausing: AtomicBool,
    control: Mutex<Control>,
}

/// What the editor asked of the game: breakpoints, agents paused, steps allowed,
/// triggers to start; and when it last said anything.
#[derive(Default)]
struct Control {
    /// Breakpoints: agent, node (trace id), what stops it.
    breakpoints: Vec<(String, String, crate::debug::BreakOn)>,
    paused: std::collections::BTreeSet<String>,
    steps: std::collections::BTreeMap<String, u32>,
    triggers: Vec<GameTrigger>,
    heard: Option<std::time::Instant>,
}

/// A trigger the editor asks a game to give one of its agents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameTrigger {
    /// The agent.
    pub agent: String,
    /// The Interrupt's id.
    pub id: String,
    /// Its payload, as typed.
    pub payload: Option<String>,
}

/// A paused agent is let go when the editor has said nothing for this long.
pub const RELEASE_AFTER: Duration = Duration::from_secs(5);

impl GameLink {
    /// Starts connecting to the editor at `editor` (retrying every half second while none
    /// listens); `hello` is sent on each connection.
    pub fn connect(hello: &Hello, editor: SocketAddr) -> Self {
        let (tx, rx) = sync_channel(QUEUE_STEPS);
        let shared = Arc::new(LinkState::default());
        let line = serde_json::to_string(hello).unwrap_or_default();
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("arbor-link".into())
                .spawn(move || send_loop(&line, editor, &rx, &shared))
                .ok()
        };
        Self { tx, shared, thread }
    }

    /// The loopback address of an editor listening on `port`.
    pub fn local(port: u16) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, port))
    }

    /// An observer that sends the events of the agent named `agent` (pass it to that
    /// agent's `Instance::step`). While no editor is connected when it is made, it costs
    /// one atomic load and gathers nothing.
    #[inline]
    pub fn watch(&self, agent: &str) -> LinkObserver<'_> {
        let live = self.connected();
        LinkObserver {
            link: self,
            live,
            name: if live {
                agent.to_owned()
            } else {
                String::new()
            },
            hit: false,
            agent: if live {
                serde_json::to_string(agent).unwrap_or_default()
            } else {
                String::new()
            },
            lines: String::new(),
            count: 0,
        }
    }

    /// Whether an editor is connected now.
    pub fn connected(&self) -> bool {
        self.shared.connected.load(Ordering::Relaxed)
    }

    /// Events dropped so far because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Whether the game may step agent `agent` now: not while a breakpoint the editor set
    /// holds it paused (at the end of the step that hit it), except for a step the editor
    /// allows; every pause ends when the editor goes away or says nothing for
    /// [`RELEASE_AFTER`]. A game asks before each step of a watched agent.
    #[inline]
    pub fn may_step(&self, agent: &str) -> bool {
        !self.shared.pausing.load(Ordering::Relaxed) || self.may_step_paused(agent)
    }

    /// [`GameLink::may_step`] while some agent is paused.
    #[inline(never)]
    fn may_step_paused(&self, agent: &str) -> bool {
        let mut c = lock(&self.shared.control);
        if !self.connected() || c.heard.is_none_or(|t| t.elapsed() > RELEASE_AFTER) {
            c.paused.clear();
            c.steps.clear();
            self.shared.pausing.store(false, Ordering::Relaxed);
            return true;
        }
        if !c.paused.contains(agent) {
            return true;
        }
        match c.steps.get_mut(agent) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// The agents paused at a breakpoint now.
    pub fn paused(&self) -> Vec<String> {
        lock(&self.shared.control).paused.iter().cloned().collect()
    }

    /// The triggers the editor asked for since the last call, to give the agents they
    /// name (`Instance::trigger`).
    pub fn take_triggers(&self) -> Vec<GameTrigger> {
        std::mem::take(&mut lock(&self.shared.control).triggers)
    }
}

impl Drop for GameLink {
    /// Tells the thread to stop, without waiting for it (it may be in a write the
    /// editor is slow to take): the game never waits for the editor.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        drop(self.thread.take());
    }
}

/// Sends one agent's events to the editor (see [`GameLink::watch`]): the events of a
/// step are gathered and queued together when it is dropped, one message a step. A
/// breakpoint the editor set that the step hits pauses the agent when it ends.
pub struct LinkObserver<'l> {
    link: &'l GameLink,
    /// An editor was connected when it was made: it gathers the step's events.
    live: bool,
    /// The agent's name, and as JSON.
    name: String,
    agent: String,
    hit: bool,
    /// The lines gathered, and how many.
    lines: String,
    count: u64,
}

impl Observer for LinkObserver<'_> {
    fn agent(&mut self, name: &str) {
        if !self.live {
            return;
        }
        self.flush();
        self.name = name.to_owned();
        self.agent = serde_json::to_string(name).unwrap_or_default();
    }

    fn event(&mut self, e: &Event<'_>) {
        if !self.live {
            return;
        }
        crate::runtime::format_event(&mut self.lines, &self.agent, e);
        self.lines.push('\n');
        self.count += 1;
        if self.link.shared.breaking.load(Ordering::Relaxed) && !self.hit {
            let kind = e.kind.map(|t| Arc::<str>::from(*t));
            self.hit = lock(&self.link.shared.control)
                .breakpoints
                .iter()
                .any(|(a, n, on)| *a == self.name && n == e.node_id && on.matches(&kind));
        }
    }
}

impl LinkObserver<'_> {
    /// Queues what was gathered (dropped and counted when the queue is full); a
    /// breakpoint's hit pauses the agent, and the editor is told.
    fn flush(&mut self) {
        if std::mem::take(&mut self.hit) {
            lock(&self.link.shared.control)
                .paused
                .insert(self.name.clone());
            self.link.shared.pausing.store(true, Ordering::Relaxed);
            self.lines.push_str("{\"paused\":");
            self.lines.push_str(&self.agent);
            self.lines.push_str("}\n");
            self.count += 1;
        }
        if self.count == 0 {
            return;
        }
        let lines = std::mem::take(&mut self.lines);
        if let Err(TrySendError::Full(_)) = self.link.tx.try_send(lines) {
            self.link
                .shared
                .dropped
                .fetch_add(self.count, Ordering::Relaxed);
        }
        self.count = 0;
    }
}

impl Drop for LinkObserver<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The game's thread: connect, say hello, send what is queued; again after a failure.
fn send_loop(hello: &str, editor: SocketAddr, rx: &Receiver<String>, shared: &LinkState) {
    while !shared.stop.load(Ordering::Relaxed) {
        let Ok(stream) = TcpStream::connect_timeout(&editor, Duration::from_millis(500)) else {
            // Nobody listens: what was queued meanwhile is nobody's.
            while rx.try_recv().is_ok() {}
            std::thread::sleep(Duration::from_millis(500));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
        // What the editor says is read without waiting (a read times out at once).
        let Ok(mut from_editor) = stream.try_clone() else {
            continue;
        };
        let _ = from_editor.set_read_timeout(Some(Duration::from_millis(1)));
        let mut inbox: Vec<u8> = Vec::new();
        let mut out = BufWriter::new(stream);
        if writeln!(out, "{hello}").and_then(|()| out.flush()).is_err() {
            continue;
        }
        lock(&shared.control).heard = Some(std::time::Instant::now());
        shared.connected.store(true, Ordering::Relaxed);
        let mut told = shared.dropped.load(Ordering::Relaxed);
        let ok = loop {
            if shared.stop.load(Ordering::Relaxed) {
                break true;
            }
            // Polled, not waited on: a game's queueing never has a thread to wake.
            std::thread::sleep(Duration::from_millis(5));
            let mut sent = true;
            loop {
                match rx.try_recv() {
                    Ok(lines) => sent = sent && out.write_all(lines.as_bytes()).is_ok(),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            let dropped = shared.dropped.load(Ordering::Relaxed);
            let said = dropped == told || writeln!(out, "{{\"dropped\":{dropped}}}").is_ok();
            told = dropped;
            if !(sent && said && out.flush().is_ok() && hear(&mut from_editor, &mut inbox, shared))
            {
                break false;
            }
        };
        shared.connected.store(false, Ordering::Relaxed);
        // The editor went away: nothing it asked holds any more.
        let mut c = lock(&shared.control);
        *c = Control::default();
        shared.breaking.store(false, Ordering::Relaxed);
        shared.pausing.store(false, Ordering::Relaxed);
        drop(c);
        if ok {
            return;
        }
        // The editor ended the connection: a moment before trying again.
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// Reads what the editor said since the last call (without waiting) and does it; false
/// when the connection ended or the editor said something unreadable.
fn hear(from: &mut TcpStream, inbox: &mut Vec<u8>, shared: &LinkState) -> bool {
    let mut chunk = [0u8; 4096];
    loop {
        match from.read(&mut chunk) {
            Ok(0) => return false,
            Ok(n) => inbox.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break;
            }
            Err(_) => return false,
        }
        if inbox.len() > MAX_TRACE_LINE {
            break;
        }
    }
    while let Some(end) = inbox.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = inbox.drain(..=end).collect();
        let Ok(said) = serde_json::from_slice::<serde_json::Value>(&line) else {
            return false;
        };
        obey(&said, shared);
    }
    inbox.len() <= MAX_TRACE_LINE
}

/// Does what one message of the editor asks (see [`Listener::send`]).
fn obey(said: &serde_json::Value, shared: &LinkState) {
    let text = |v: &serde_json::Value| v.as_str().map(str::to_owned);
    let mut c = lock(&shared.control);
    c.heard = Some(std::time::Instant::now());
    if let Some(list) = said.get("breakpoints").and_then(|b| b.as_array()) {
        c.breakpoints = list
            .iter()
            .filter_map(|b| {
                let on = crate::debug::BreakOn::from_name(b.get("on")?.as_str()?)?;
                Some((text(b.get("agent")?)?, text(b.get("node")?)?, on))
            })
            .collect();
        shared
            .breaking
            .store(!c.breakpoints.is_empty(), Ordering::Relaxed);
    }
    if let Some(agent) = said.get("step").and_then(text) {
        *c.steps.entry(agent).or_insert(0) += 1;
    }
    match said.get("continue") {
        Some(serde_json::Value::Null) => {
            c.paused.clear();
            c.steps.clear();
        }
        Some(v) => {
            if let Some(agent) = text(v) {
                c.paused.remove(&agent);
                c.steps.remove(&agent);
            }
        }
        None => {}
    }
    shared
        .pausing
        .store(!c.paused.is_empty(), Ordering::Relaxed);
    if let Some(t) = said.get("trigger")
        && let (Some(agent), Some(id)) = (t.get("agent").and_then(text), t.get("id").and_then(text))
        && c.triggers.len() < 1024
    {
        let payload = t.get("payload").and_then(text);
        c.triggers.push(GameTrigger { agent, id, payload });
    }
}

// ---- the editor's side ----------------------------------------------------------------

/// A game as the editor knows it.
#[derive(Clone, Debug)]
pub struct LiveGame {
    /// Its name (made unique: a second game of the same name is `NAME (2)`).
    pub name: String,
    /// What it said first.
    pub hello: Hello,
    /// The agents its events name: those of its hello first.
    pub agents: Vec<String>,
    /// Every event received, in order (at most [`MAX_KEPT_EVENTS`]).
    pub events: Vec<TracedEvent>,
    /// Whether it is still connected.
    pub connected: bool,
    /// Events it dropped, by its own count.
    pub dropped: u64,
    /// Why its connection ended, if something was wrong.
    pub problem: Option<String>,
    /// Its agents paused at a breakpoint, as it said.
    pub paused: Vec<String>,
    /// Where what the editor says to it goes.
    writer: Option<Arc<Mutex<TcpStream>>>,
}

/// The editor's end: a thread accepting games, and one reading each.
pub struct Listener {
    addr: SocketAddr,
    games: Arc<Mutex<Vec<LiveGame>>>,
    stop: Arc<AtomicBool>,
    /// When the games were last told the editor is there.
    said_alive: Mutex<Option<std::time::Instant>>,
}

impl Listener {
    /// Listens on the loopback address, port `port` (0: any free one).
    pub fn local(port: u16) -> std::io::Result<Self> {
        Self::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
    }

    /// Listens on `addr`: a non-loopback address only when it is asked for so.
    pub fn bind(addr: SocketAddr) -> std::io::Result<Self> {
        let socket = TcpListener::bind(addr)?;
        socket.set_nonblocking(true)?;
        let addr = socket.local_addr()?;
        let games = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        {
            let (games, stop) = (games.clone(), stop.clone());
            std::thread::Builder::new()
                .name("arbor-listen".into())
                .spawn(move || accept_loop(&socket, &games, &stop))?;
        }
        Ok(Self {
            addr,
            games,
            stop,
            said_alive: Mutex::new(None),
        })
    }

    /// Tells game `i` `message` (one JSON object): its breakpoints
    /// (`{"breakpoints":[{"agent":A,"node":N,"on":ON}, …]}`), a step of a paused agent
    /// (`{"step":A}`), to go on (`{"continue":A}`, or `null` for every agent), a trigger
    /// (`{"trigger":{"agent":A,"id":ID,"payload":P}}`). False when it is not connected.
    pub fn send(&self, i: usize, message: &serde_json::Value) -> bool {
        let writer = {
            let mut games = self.games();
            let Some(g) = games.get_mut(i).filter(|g| g.connected) else {
                return false;
            };
            if message.get("continue").is_some() {
                match message["continue"].as_str() {
                    Some(a) => g.paused.retain(|p| p != a),
                    None => g.paused.clear(),
                }
            }
            g.writer.clone()
        };
        writer.is_some_and(|w| writeln!(lock(&w), "{message}").is_ok())
    }

    /// Tells every connected game, once a second at most, that the editor is there (a
    /// game lets its paused agents go after [`RELEASE_AFTER`] of silence).
    pub fn heartbeat(&self) {
        let mut last = lock(&self.said_alive);
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            return;
        }
        *last = Some(std::time::Instant::now());
        drop(last);
        let n = self.games().len();
        for i in 0..n {
            self.send(i, &serde_json::json!({ "alive": 1 }));
        }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The games that have connected, in the order they came.
    pub fn games(&self) -> MutexGuard<'_, Vec<LiveGame>> {
        lock(&self.games)
    }

    /// Game `i`'s events from the `from`th on, with the names of its agents.
    pub fn since(&self, i: usize, from: usize) -> (Vec<String>, Vec<TracedEvent>) {
        let games = self.games();
        match games.get(i) {
            Some(g) => (
                g.agents.clone(),
                g.events
                    .get(from..)
                    .map_or_else(Vec::new, <[TracedEvent]>::to_vec),
            ),
            None => (Vec::new(), Vec::new()),
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn accept_loop(socket: &TcpListener, games: &Arc<Mutex<Vec<LiveGame>>>, stop: &Arc<AtomicBool>) {
    let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    while !stop.load(Ordering::Relaxed) {
        match socket.accept() {
            Ok((stream, _))
                if open.load(Ordering::Relaxed) >= MAX_GAMES || lock(games).len() >= MAX_LISTED =>
            {
                drop(stream);
            }
            Ok((stream, _)) => {
                let (games, stop, done) = (games.clone(), stop.clone(), open.clone());
                open.fetch_add(1, Ordering::Relaxed);
                let spawned =
                    std::thread::Builder::new()
                        .name("arbor-game".into())
                        .spawn(move || {
                            read_game(stream, &games, &stop);
                            done.fetch_sub(1, Ordering::Relaxed);
                        });
                if spawned.is_err() {
                    open.fetch_sub(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Reads one line of at most `max` bytes: `Ok(None)` at the end, `Err` with what is wrong.
fn read_line(
    input: &mut impl BufRead,
    max: usize,
    buf: &mut Vec<u8>,
) -> Result<Option<()>, String> {
    buf.clear();
    let n = input
        .by_ref()
        .take(max as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| format!("the connection failed: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > max {
        return Err(format!("a message longer than {max} bytes"));
    }
    if buf.last() != Some(&b'\n') {
        return Err("the game went away in the middle of a message".into());
    }
    Ok(Some(()))
}

/// One game's connection: its hello, then its events, until it ends.
fn read_game(stream: TcpStream, games: &Mutex<Vec<LiveGame>>, stop: &AtomicBool) {
    // Blocking reads: the thread waits for the game, and ends with its connection; a
    // connection that says no hello within ten seconds is no game.
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut input = BufReader::new(stream);
    let mut buf = Vec::new();
    // The hello: what the game is. A connection that does not start with one is no game.
    let hello: Hello = match read_line(&mut input, MAX_HELLO, &mut buf) {
        Ok(Some(())) => {
            match std::str::from_utf8(&buf)
                .ok()
                .and_then(|t| serde_json::from_str(t).ok())
            {
                Some(h) => h,
                None => return,
            }
        }
        _ => return,
    };
    if hello.arbor_live != LIVE_VERSION {
        return;
    }
    let _ = input.get_ref().set_read_timeout(None);
    let at = {
        let mut all = lock(games);
        let taken = |n: &str| all.iter().any(|g| g.name == n && g.connected);
        let mut name = hello.game.clone();
        let mut k = 2;
        while taken(&name) {
            name = format!("{} ({k})", hello.game);
            k += 1;
        }
        all.push(LiveGame {
            name,
            agents: hello.run.agents.iter().map(|a| a.name.clone()).collect(),
            hello,
            events: Vec::new(),
            connected: true,
            dropped: 0,
            problem: None,
            paused: Vec::new(),
            writer: input.get_ref().try_clone().ok().map(|w| {
                let _ = w.set_write_timeout(Some(Duration::from_millis(200)));
                Arc::new(Mutex::new(w))
            }),
        });
        all.len() - 1
    };
    let mut number = 1;
    let mut index = AgentIndex::of(&lock(games)[at].agents);
    let mut bytes = 0usize;
    let ended = loop {
        if stop.load(Ordering::Relaxed) {
            break None;
        }
        match read_line(&mut input, MAX_TRACE_LINE, &mut buf) {
            Ok(None) => break None,
            Err(e) => break Some(e),
            Ok(Some(())) => {}
        }
        number += 1;
        let Ok(text) = std::str::from_utf8(&buf) else {
            break Some(format!("message {number} is not UTF-8 text"));
        };
        let text = text.trim();
        if let Some(n) = text
            .strip_prefix("{\"dropped\":")
            .and_then(|r| r.strip_suffix('}'))
            .and_then(|n| n.parse::<u64>().ok())
        {
            lock(games)[at].dropped = n;
            continue;
        }
        if let Some(agent) = text
            .strip_prefix("{\"paused\":")
            .and_then(|r| r.strip_suffix('}'))
            .and_then(|a| serde_json::from_str::<String>(a).ok())
        {
            let mut all = lock(games);
            if !all[at].paused.contains(&agent) && all[at].paused.len() < MAX_TRACE_AGENTS {
                all[at].paused.push(agent);
            }
            continue;
        }
        let mut all = lock(games);
        let g = &mut all[at];
        bytes += text.len();
        if g.events.len() >= MAX_KEPT_EVENTS || bytes > MAX_KEPT_BYTES {
            break Some(format!(
                "the run is longer than the editor keeps ({MAX_KEPT_EVENTS} events, {} MB); later events are not shown",
                MAX_KEPT_BYTES >> 20
            ));
        }
        match parse_event(text, &mut g.agents, &mut index, number) {
            Ok(e) => g.events.push(e),
            Err(e) => break Some(format!("message {number}: {e}")),
        }
    };
    let mut all = lock(games);
    all[at].connected = false;
    all[at].problem = ended;
    all[at].paused.clear();
    all[at].writer = None;
}
