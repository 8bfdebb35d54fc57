//! The editor's side of live attach: [`Listener`] accepts games on the loopback address
//! (unless told otherwise), checks each one's hello (its version, the editor's token) within
//! a deadline, and keeps what each game sends in a bounded window: its last steps, at
//! most [`WINDOW_EVENTS`] events. A game that connects again under its name takes its
//! old place in the list, its earlier runs listed under it; ended games beyond the newest
//! few keep only their row, and the list drops its oldest ended game rather than refuse a
//! new one. Every connection refused, and why, is a notice for the status line.
//!
//! Each game has a thread that reads it and one that writes to it, so neither the editor's
//! frame nor the other games wait for a slow or hostile peer; the writing thread also tells
//! the game once a second that the editor is there.

use std::collections::{BTreeSet, VecDeque};
use std::io::{BufReader, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use foldhash::HashSet;

use super::protocol::{
    EditorSays, GameSays, Hello, LIVE_VERSION, LinkSays, MAX_HELLO, MAX_MESSAGE, line_of, read_line,
};
use super::{EditorAddress, lock, new_token, quoted};
use crate::debug::{EventWindow, GameCommand};
use crate::io::{AgentIndex, TracedEvent, parse_event};
use crate::runtime::EventKindOf;

/// Games connected at once; a game past this is refused, and the editor says so.
pub const MAX_GAMES: usize = 16;

/// Connections that have not yet said their hello, at once; a connection past this closes
/// the one waiting longest, so peers that never finish a hello cannot keep a game out.
pub const MAX_PENDING: usize = 8;

/// How long a connection has to say its whole hello.
pub const HELLO_WITHIN: Duration = Duration::from_secs(5);

/// Games listed, connected or ended; past this the one that ended first leaves the list.
pub const MAX_LISTED: usize = 64;

/// What is kept of one game: its last steps (whole steps), at most 500,000 events
/// holding at most 64 MiB of their own ([`TracedEvent::cost`]: about 60 bytes an event,
/// more with long text values).
pub const WINDOW: EventWindow = EventWindow {
    events: 500_000,
    bytes: 64 << 20,
};

/// Connections whose hello is still being read or checked, at once; one past this is
/// closed at once (a connection closed to make room may still be parsing its hello).
const MAX_HELLO_THREADS: usize = 2 * MAX_PENDING;

/// The longest game name shown; a longer one is cut.
const MAX_NAME: usize = 80;

/// Ended games whose window is kept (the newest to end); the others keep their row only.
pub const KEPT_ENDED: usize = 4;

/// Earlier runs of a game listed under it, at most.
pub const KEPT_RUNS: usize = 8;

/// Distinct node ids, keys, Interrupt ids and reasons one game's events may name.
pub const MAX_NAMES: usize = 65_536;

/// Messages waiting to be written to one game; a game that lets more pile up no longer
/// reads what the editor says, and its connection ends.
pub const TO_GAME: usize = 1_024;

/// Notices kept for the status line until taken.
const MAX_NOTICES: usize = 32;

/// How often the editor tells each game that it is there.
const ALIVE_EVERY: Duration = Duration::from_secs(1);

/// A game as the editor lists it.
#[derive(Clone, Debug)]
pub struct GameInfo {
    /// Its id in the listener's list: the same while it is listed, never another game's.
    pub id: u64,
    /// Its name (made unique among games connected at once: a second is `NAME (2)`).
    pub name: String,
    /// What it said first in its current (or last) run.
    pub hello: Arc<Hello>,
    /// Which run it is: 1, then one more each time the game connects again.
    pub run: u32,
    /// Its earlier runs, newest last (at most [`KEPT_RUNS`]).
    pub earlier: Vec<EndedRun>,
    /// Whether it is connected.
    pub connected: bool,
    /// Why its connection ended, if something was wrong.
    pub problem: Option<String>,
    /// Events it dropped, by its own count.
    pub dropped: u64,
    /// Its agents held paused, as it said.
    pub paused: BTreeSet<String>,
    /// Events received in this run.
    pub received: u64,
    /// Events kept of this run (its last steps).
    pub kept: usize,
}

/// An earlier run of a game, listed under it.
#[derive(Clone, Debug, PartialEq)]
pub struct EndedRun {
    /// Events received.
    pub events: u64,
    /// Why it ended, if something was wrong.
    pub problem: Option<String>,
}

/// What a game sent since a point: see [`Listener::since`].
#[derive(Clone, Debug, Default)]
pub struct Received {
    /// The run it belongs to ([`GameInfo::run`]).
    pub run: u32,
    /// The names its events refer to, when there are more than the `known` asked with
    /// (else empty).
    pub agents: Vec<String>,
    /// The events, in the order they came.
    pub events: Vec<TracedEvent>,
    /// The number of the next event to ask for.
    pub next: u64,
    /// Events that left the window before they were asked for.
    pub missed: u64,
}

/// One game in the list.
struct Entry {
    info: GameInfo,
    agents: Vec<String>,
    window: VecDeque<TracedEvent>,
    /// The number (in the run) of the first event in the window, and what the window's
    /// events hold of their own.
    first: u64,
    cost: usize,
    writer: Option<SyncSender<Vec<u8>>>,
    socket: Option<TcpStream>,
    /// When it ended, to choose which ended games keep their window.
    ended: Option<Instant>,
}

impl Entry {
    /// Adds `events` to the window, keeping it within `max`: the oldest steps go, whole,
    /// an eighth of it at a time (the last step always stays).
    fn keep(&mut self, events: impl IntoIterator<Item = TracedEvent>, max: EventWindow) {
        for e in events {
            self.cost += e.cost();
            self.window.push_back(e);
        }
        self.info.kept = self.window.len();
        if self.window.len() <= max.events && self.cost <= max.bytes {
            return;
        }
        let (events, bytes) = (max.events - max.events / 8, max.bytes - max.bytes / 8);
        let newest = self.window.back().map(TracedEvent::frame);
        let mut last = None;
        while let Some(e) = self.window.front() {
            let frame = e.frame();
            let fits = self.window.len() <= events && self.cost <= bytes;
            if (fits && last != Some(frame)) || Some(frame) == newest {
                break;
            }
            last = Some(frame);
            self.cost -= e.cost();
            self.window.pop_front();
            self.first += 1;
        }
        self.info.kept = self.window.len();
    }
}

/// What the listener's threads and the editor share.
struct State {
    games: Vec<Entry>,
    next_id: u64,
    /// Notices for the status line, each with how many times it came.
    notices: VecDeque<(String, u32)>,
    /// Connections still to say their hello: a number, when each came, its socket.
    pending: Vec<(u64, Instant, TcpStream)>,
    /// Games connected now, and connections whose hello is being read.
    open: usize,
    hellos: usize,
    /// What is kept of a game.
    window: EventWindow,
}

impl State {
    fn notice(&mut self, text: String) {
        match self.notices.back_mut() {
            Some((last, n)) if *last == text => *n += 1,
            _ => {
                if self.notices.len() >= MAX_NOTICES {
                    self.notices.pop_front();
                }
                self.notices.push_back((text, 1));
            }
        }
    }

    fn entry(&mut self, id: u64) -> Option<&mut Entry> {
        self.games.iter_mut().find(|g| g.info.id == id)
    }

    /// The place for a game named `name`: its ended entry (a restart), else a new one
    /// (`NAME (2)` while a game of that name is connected).
    fn place_for(
        &mut self,
        hello: Hello,
        socket: Option<TcpStream>,
        writer: SyncSender<Vec<u8>>,
    ) -> u64 {
        let hello = Arc::new(hello);
        let agents: Vec<String> = hello.agent_names().map(str::to_owned).collect();
        let mut k = 1;
        let name = loop {
            let name = if k == 1 {
                hello.game.clone()
            } else {
                format!("{} ({k})", hello.game)
            };
            if !self
                .games
                .iter()
                .any(|g| g.info.name == name && g.info.connected)
            {
                break name;
            }
            k += 1;
        };
        if let Some(g) = self.games.iter_mut().find(|g| g.info.name == name) {
            // A restart: the run before goes under it.
            let i = &mut g.info;
            i.earlier.push(EndedRun {
                events: i.received,
                problem: i.problem.take(),
            });
            if i.earlier.len() > KEPT_RUNS {
                i.earlier.remove(0);
            }
            i.run += 1;
            i.hello = hello;
            i.connected = true;
            i.dropped = 0;
            i.paused.clear();
            i.received = 0;
            i.kept = 0;
            g.agents = agents;
            g.window = VecDeque::new();
            g.first = 0;
            g.cost = 0;
            g.writer = Some(writer);
            g.socket = socket;
            g.ended = None;
            return i.id;
        }
        if self.games.len() >= MAX_LISTED
            && let Some(oldest) = self
                .games
                .iter()
                .enumerate()
                .filter_map(|(n, g)| g.ended.map(|t| (t, n)))
                .min()
                .map(|(_, n)| n)
        {
            self.games.remove(oldest);
        }
        self.next_id += 1;
        let id = self.next_id;
        self.games.push(Entry {
            info: GameInfo {
                id,
                name,
                hello,
                run: 1,
                earlier: Vec::new(),
                connected: true,
                problem: None,
                dropped: 0,
                paused: BTreeSet::new(),
                received: 0,
                kept: 0,
            },
            agents,
            window: VecDeque::new(),
            first: 0,
            cost: 0,
            writer: Some(writer),
            socket,
            ended: None,
        });
        id
    }

    /// Only the newest [`KEPT_ENDED`] ended games keep their window.
    fn forget_old_windows(&mut self) {
        let mut ended: Vec<(Instant, usize)> = self
            .games
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.window.is_empty())
            .filter_map(|(n, g)| g.ended.map(|t| (t, n)))
            .collect();
        ended.sort_unstable_by(|a, b| b.cmp(a));
        for &(_, n) in ended.iter().skip(KEPT_ENDED) {
            let g = &mut self.games[n];
            g.first += g.window.len() as u64;
            g.window = VecDeque::new();
            g.cost = 0;
            g.info.kept = 0;
        }
    }
}

/// What the listener's threads share.
struct Shared {
    stop: AtomicBool,
    token: String,
    state: Mutex<State>,
    /// Called when something changed that the editor shows.
    waker: Mutex<Option<Waker>>,
}

/// What the listener calls when something changed that the editor shows.
type Waker = Arc<dyn Fn() + Send + Sync>;

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Tells the editor something changed (a game came, sent, ended, or was refused).
    fn wake(&self) {
        let waker = lock(&self.waker).clone();
        if let Some(w) = waker {
            w();
        }
    }
}

/// The editor's end of live attach: see the module's documentation.
pub struct Listener {
    address: EditorAddress,
    shared: Arc<Shared>,
}

impl Listener {
    /// Listens on the loopback address, port `port` (0: any free one), with a new token.
    pub fn local(port: u16) -> std::io::Result<Self> {
        Self::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)), new_token()?)
    }

    /// Listens on `addr` (a non-loopback address only when it is asked for so); games
    /// must say `token` in their hello.
    pub fn bind(addr: SocketAddr, token: String) -> std::io::Result<Self> {
        let socket = TcpListener::bind(addr)?;
        socket.set_nonblocking(true)?;
        let addr = socket.local_addr()?;
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            token: token.clone(),
            state: Mutex::new(State {
                games: Vec::new(),
                next_id: 0,
                notices: VecDeque::new(),
                pending: Vec::new(),
                open: 0,
                hellos: 0,
                window: WINDOW,
            }),
            waker: Mutex::new(None),
        });
        {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("arbor-listen".into())
                .spawn(move || accept_loop(&socket, &shared))?;
        }
        Ok(Self {
            address: EditorAddress { addr, token },
            shared,
        })
    }

    /// Where games reach this editor, with the token they must say.
    pub fn address(&self) -> &EditorAddress {
        &self.address
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.address.addr
    }

    /// The games listed, in the order they first came.
    pub fn games(&self) -> Vec<GameInfo> {
        self.shared
            .state()
            .games
            .iter()
            .map(|g| g.info.clone())
            .collect()
    }

    /// Game `id`, if it is listed.
    pub fn game(&self, id: u64) -> Option<GameInfo> {
        self.shared.state().entry(id).map(|g| g.info.clone())
    }

    /// What game `id` sent in its current run from its `from`th event on (those still
    /// in its window), with the names its events refer to when there are more than
    /// `known`; `None` when it is no longer listed.
    pub fn since(&self, id: u64, from: u64, known: usize) -> Option<Received> {
        let mut state = self.shared.state();
        let g = state.entry(id)?;
        let missed = g.first.saturating_sub(from);
        let skip = usize::try_from(from.saturating_sub(g.first)).unwrap_or(usize::MAX);
        Some(Received {
            run: g.info.run,
            agents: if g.agents.len() > known {
                g.agents.clone()
            } else {
                Vec::new()
            },
            events: g.window.iter().skip(skip).cloned().collect(),
            next: g.first + g.window.len() as u64,
            missed,
        })
    }

    /// Tells game `id` `command`; false when it is not connected or no longer reads what
    /// the editor says (then its connection ends).
    pub fn send(&self, id: u64, command: &GameCommand) -> bool {
        let mut state = self.shared.state();
        let Some(g) = state.entry(id).filter(|g| g.info.connected) else {
            return false;
        };
        match command {
            GameCommand::Continue(Some(a)) => {
                g.info.paused.remove(a);
            }
            GameCommand::Continue(None) => g.info.paused.clear(),
            _ => {}
        }
        let Some(writer) = &g.writer else {
            return false;
        };
        let line = line_of(&EditorSays::Command(command.clone()));
        if line.len() > MAX_MESSAGE {
            let name = g.info.name.clone();
            state.notice(format!(
                "Live attach: what the editor would tell '{name}' is longer than {MAX_MESSAGE} bytes (too many breakpoints or agents named); it is not sent"
            ));
            return false;
        }
        match writer.try_send(line) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                if let Some(s) = &g.socket {
                    let _ = s.shutdown(Shutdown::Both);
                }
                false
            }
            Err(TrySendError::Disconnected(_)) => false,
        }
    }

    /// Calls `wake` whenever something changes that the editor shows: a game connects,
    /// sends, ends or is refused (so the editor need not look while nothing comes).
    pub fn set_waker(&self, wake: impl Fn() + Send + Sync + 'static) {
        *lock(&self.shared.waker) = Some(Arc::new(wake));
    }

    /// Keeps `window` of each game from now on, instead of [`WINDOW`].
    pub fn set_window(&self, window: EventWindow) {
        self.shared.state().window = EventWindow {
            events: window.events.max(1),
            bytes: window.bytes.max(1),
        };
    }

    /// What is kept of each game.
    pub fn window(&self) -> EventWindow {
        self.shared.state().window
    }

    /// Drops every ended game from the list; returns how many went.
    pub fn clear_ended(&self) -> usize {
        let mut state = self.shared.state();
        let before = state.games.len();
        state.games.retain(|g| g.info.connected);
        before - state.games.len()
    }

    /// What happened that the user should hear of (a connection refused, and why) since
    /// the last call.
    pub fn take_notices(&self) -> Vec<String> {
        self.shared
            .state()
            .notices
            .drain(..)
            .map(|(t, n)| if n > 1 { format!("{t} (×{n})") } else { t })
            .collect()
    }
}

impl Drop for Listener {
    /// Stops accepting and closes every connection.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        let state = self.shared.state();
        for s in state.games.iter().filter_map(|g| g.socket.as_ref()) {
            let _ = s.shutdown(Shutdown::Both);
        }
        for (_, _, s) in &state.pending {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

fn accept_loop(socket: &TcpListener, shared: &Arc<Shared>) {
    let mut number = 0u64;
    while !shared.stop.load(Ordering::Relaxed) {
        let Ok((stream, peer)) = socket.accept() else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        number += 1;
        // (Accepted sockets can inherit the listener's non-blocking mode.)
        let _ = stream.set_nonblocking(false);
        let Ok(kept) = stream.try_clone() else {
            continue;
        };
        {
            let mut state = shared.state();
            if state.hellos >= MAX_HELLO_THREADS {
                state.notice(format!(
                    "Live attach: refused a connection from {}: {MAX_HELLO_THREADS} connections are saying their hello",
                    peer.ip()
                ));
                drop(state);
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            }
            state.hellos += 1;
            if state.pending.len() >= MAX_PENDING {
                // The connection waiting longest for its hello makes room.
                let (_, _, oldest) = state.pending.remove(0);
                let _ = oldest.shutdown(Shutdown::Both);
            }
            state.pending.push((number, Instant::now(), kept));
        }
        let shared2 = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("arbor-game".into())
            .spawn(move || read_game(stream, peer, number, &shared2));
        if spawned.is_err() {
            let mut state = shared.state();
            state.pending.retain(|(n, _, _)| *n != number);
            state.hellos -= 1;
            drop(state);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Reads from a game's connection, every read bounded by the deadline while there is one
/// (the hello's).
struct Timed<'s> {
    stream: &'s TcpStream,
    deadline: Option<Instant>,
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(std::io::ErrorKind::TimedOut.into());
            }
            self.stream.set_read_timeout(Some(left))?;
        }
        self.stream.read(buf)
    }
}

/// The hello of a new connection, within [`HELLO_WITHIN`]; `Err` says why it is none.
fn read_hello(input: &mut BufReader<Timed<'_>>) -> Result<Hello, String> {
    let mut buf = Vec::new();
    match read_line(input, MAX_HELLO, &mut buf) {
        Ok(true) => {}
        Ok(false) => return Err("closed before its hello".into()),
        Err(e) if e.contains("in time") => {
            return Err(format!("said no hello within {} s", HELLO_WITHIN.as_secs()));
        }
        Err(e) => return Err(format!("sent no hello ({e})")),
    }
    // Its version first, before anything else it says is read.
    #[derive(serde::Deserialize)]
    struct Head {
        arbor_live: Option<u64>,
    }
    let head: Head = serde_json::from_slice(&buf)
        .map_err(|_| "sent something that is not a game's hello".to_owned())?;
    match head.arbor_live {
        Some(v) if v == u64::from(LIVE_VERSION) => {}
        Some(v) => {
            return Err(format!(
                "speaks live attach version {v}; this editor speaks {LIVE_VERSION} (update the game's or the editor's Arbor)"
            ));
        }
        None => return Err("sent something that is not a game's hello".into()),
    }
    serde_json::from_slice(&buf).map_err(|e| {
        format!(
            "sent a hello that does not read: {}",
            quoted(&e.to_string())
        )
    })
}

/// Tells a peer why it is refused, without waiting long for it, and closes.
fn refuse(mut stream: &TcpStream, why: &str) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
    let _ = stream.write_all(&line_of(&EditorSays::Link(LinkSays::Refused(
        why.to_owned(),
    ))));
    let _ = stream.shutdown(Shutdown::Both);
}

/// Whether `said` is `token`, compared in a time that does not depend on where they
/// differ.
fn token_is(said: &str, token: &str) -> bool {
    said.len() == token.len()
        && said
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |d, (a, b)| d | (a ^ b))
            == 0
}

/// One connection: its hello, then the game's events, until it ends; the editor is woken
/// when it ends (taken, refused or over).
fn read_game(stream: TcpStream, peer: SocketAddr, number: u64, shared: &Shared) {
    serve(stream, peer, number, shared);
    shared.wake();
}

/// A game's name as the list shows it: at most [`MAX_NAME`] characters, no control
/// characters.
fn shown_name(game: &str) -> String {
    let mut name: String = game
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME)
        .collect();
    if name.trim().is_empty() {
        name = "(unnamed)".into();
    }
    name
}

fn serve(stream: TcpStream, peer: SocketAddr, number: u64, shared: &Shared) {
    let mut input = BufReader::with_capacity(
        64 * 1024,
        Timed {
            stream: &stream,
            deadline: Some(Instant::now() + HELLO_WITHIN),
        },
    );
    let hello = read_hello(&mut input);
    {
        let mut state = shared.state();
        state.pending.retain(|(n, _, _)| *n != number);
        state.hellos -= 1;
    }
    let hello = match hello {
        Ok(h) => h,
        Err(why) => {
            shared.state().notice(format!(
                "Live attach: a connection from {peer} {why}; it was closed"
            ));
            refuse(&stream, &why);
            return;
        }
    };
    let mut hello = hello;
    hello.game = shown_name(&hello.game);
    let game = hello.game.clone();
    if !token_is(&hello.token, &shared.token) {
        let why = if hello.token.is_empty() {
            "it carries no token; set ARBOR_LIVE to this editor's address and token, or start it where it finds this editor's card"
        } else {
            "its token is not this editor's (it was meant for another editor)"
        };
        shared.state().notice(format!(
            "Live attach: refused the game '{game}' from {peer}: {why}"
        ));
        refuse(&stream, why);
        return;
    }
    let (tx, rx) = sync_channel::<Vec<u8>>(TO_GAME);
    let id = {
        let mut state = shared.state();
        if state.open >= MAX_GAMES {
            let why = format!("{MAX_GAMES} games are connected, the most at once");
            state.notice(format!("Live attach: refused the game '{game}': {why}"));
            drop(state);
            refuse(&stream, &why);
            return;
        }
        state.open += 1;
        state.place_for(hello, stream.try_clone().ok(), tx.clone())
    };
    let _ = tx.try_send(line_of(&EditorSays::Link(LinkSays::Welcome {})));
    drop(tx);
    shared.wake();
    if let Ok(out) = stream.try_clone() {
        let spawned = std::thread::Builder::new()
            .name("arbor-game-out".into())
            .spawn(move || write_game(out, &rx));
        drop(spawned);
    }
    // Then reads wait for the game as long as it takes; the thread ends with it.
    input.get_mut().deadline = None;
    let _ = stream.set_read_timeout(None);
    let ended = read_events(&mut input, id, shared);
    let mut state = shared.state();
    state.open = state.open.saturating_sub(1);
    if let Some(g) = state.entry(id) {
        g.info.connected = false;
        g.info.problem = ended;
        g.info.paused.clear();
        g.writer = None;
        g.socket = None;
        g.ended = Some(Instant::now());
    }
    state.forget_old_windows();
}

/// Writes what the editor says to one game, and once a second that it is there; ends
/// with the connection (or when the game no longer takes what is written).
fn write_game(mut out: TcpStream, rx: &Receiver<Vec<u8>>) {
    let _ = out.set_write_timeout(Some(Duration::from_secs(5)));
    loop {
        let mut bytes = match rx.recv_timeout(ALIVE_EVERY) {
            Ok(b) => b,
            Err(RecvTimeoutError::Timeout) => line_of(&EditorSays::Link(LinkSays::Alive {})),
            Err(RecvTimeoutError::Disconnected) => return,
        };
        // What piled up goes in one write.
        while let Ok(more) = rx.try_recv() {
            bytes.extend_from_slice(&more);
        }
        if out.write_all(&bytes).is_err() {
            let _ = out.shutdown(Shutdown::Both);
            return;
        }
    }
}

/// A game's texts, each kept once: the node ids, keys, Interrupt ids and reasons its
/// events name (at most [`MAX_NAMES`]).
struct Names(HashSet<Arc<str>>);

impl Names {
    fn keep(&mut self, text: &mut Arc<str>) -> Result<(), String> {
        if let Some(k) = self.0.get(&**text) {
            *text = k.clone();
            return Ok(());
        }
        if self.0.len() >= MAX_NAMES {
            return Err(format!(
                "its events name more than {MAX_NAMES} different nodes, keys and reasons"
            ));
        }
        self.0.insert(text.clone());
        Ok(())
    }

    fn keep_event(&mut self, e: &mut TracedEvent) -> Result<(), String> {
        use EventKindOf as K;
        if let Some(n) = &mut e.node {
            self.keep(n)?;
        }
        match &mut e.kind {
            K::Exit(_, Some(t)) | K::Interrupt(t) | K::ContextMissing(t) | K::Context(t, _) => {
                self.keep(t)
            }
            _ => Ok(()),
        }
    }
}

/// Lines read in one go before they are added to the game's window.
const BATCH: usize = 1_024;

/// Reads a game's messages until its connection ends; returns what was wrong, if
/// anything. The events are kept in the order they came: an event's step is taken to be
/// at least the newest step the game sent before it (an agent held, or one that joined
/// later, counts its own steps behind the others), so what comes is never shown before
/// what was shown already.
fn read_events(input: &mut BufReader<Timed<'_>>, id: u64, shared: &Shared) -> Option<String> {
    let mut buf = Vec::new();
    let (mut agents, mut index) = {
        let mut state = shared.state();
        let g = state.entry(id)?;
        let agents = g.agents.clone();
        let index = AgentIndex::of(&agents);
        (agents, index)
    };
    let mut names = Names(HashSet::default());
    let mut number = 1usize;
    // The game's newest step: what comes is shown there or later (see `read_events`).
    let mut head = 0u64;
    let mut batch: Vec<TracedEvent> = Vec::new();
    let mut said: Vec<GameSays> = Vec::new();
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        // A batch: what is already here, read without waiting, up to BATCH lines.
        let mut ended = None;
        loop {
            match read_line(input, MAX_MESSAGE, &mut buf) {
                Ok(false) => {
                    ended = Some(None);
                    break;
                }
                Err(e) => {
                    ended = Some(Some(e));
                    break;
                }
                Ok(true) => {}
            }
            number += 1;
            let Ok(text) = std::str::from_utf8(&buf) else {
                ended = Some(Some(format!("message {number} is not UTF-8 text")));
                break;
            };
            let text = text.trim();
            if text.starts_with("{\"step\"") {
                let parsed = parse_event(text, &mut agents, &mut index, number)
                    .and_then(|mut e| names.keep_event(&mut e).map(|()| e));
                match parsed {
                    Ok(mut e) => {
                        // Shown in the order the game ran them: an agent the game held, or
                        // one that joined later, counts its own steps behind the others.
                        e.step = e.step.max(head);
                        head = e.step;
                        batch.push(e);
                    }
                    Err(e) => {
                        ended = Some(Some(format!("message {number}: {}", quoted(&e))));
                        break;
                    }
                }
            } else {
                match serde_json::from_str::<GameSays>(text) {
                    Ok(s) => said.push(s),
                    Err(e) => {
                        ended = Some(Some(format!(
                            "message {number} is neither an event nor a game's message: {}",
                            quoted(&e.to_string().replace(" at line 1 column ", " at column "))
                        )));
                        break;
                    }
                }
            }
            if batch.len() + said.len() >= BATCH || input.buffer().is_empty() {
                break;
            }
        }
        {
            let mut state = shared.state();
            let window = state.window;
            let g = state.entry(id)?;
            if agents.len() > g.agents.len() {
                g.agents.extend_from_slice(&agents[g.agents.len()..]);
            }
            g.info.received += batch.len() as u64;
            g.keep(batch.drain(..), window);
            for s in said.drain(..) {
                match s {
                    GameSays::Dropped(n) => g.info.dropped = n,
                    GameSays::Paused(a) => {
                        if index.contains(&a) {
                            g.info.paused.insert(a);
                        }
                    }
                }
            }
        }
        shared.wake();
        if let Some(ended) = ended {
            return ended;
        }
    }
}
