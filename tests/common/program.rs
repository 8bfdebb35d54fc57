//! tests/btcpp/publish.py, a BehaviorTree.CPP program with a Groot2Publisher, run for a
//! test to attach to.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use arbor::remote::groot2::PublisherAddress;

/// Two free ports in a row (the publisher takes PORT and PORT + 1), not given before.
pub fn ports() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let _ = NEXT.compare_exchange(
        0,
        21_000 + (std::process::id() % 20_000) as u16,
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
    loop {
        let port = NEXT.fetch_add(2, Ordering::SeqCst);
        let free = |p: u16| std::net::TcpListener::bind(("0.0.0.0", p)).is_ok();
        if free(port) && free(port + 1) {
            return port;
        }
    }
}

/// tests/btcpp/publish.py, running: its publisher's port, and its answers a line each.
pub struct Program {
    /// The port its publisher listens on (and the next).
    pub port: u16,
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Program {
    /// Starts it, and waits for its publisher.
    pub fn start() -> Self {
        Self::start_on(ports())
    }

    /// Starts it with its publisher on `port` (and the next), and waits for it.
    pub fn start_on(port: u16) -> Self {
        Self::launch(port, None)
    }

    /// Starts it, recording its run into the `.btlog` `log` too (written when it quits).
    pub fn start_logging(log: &std::path::Path) -> Self {
        Self::launch(ports(), Some(log))
    }

    fn launch(port: u16, log: Option<&std::path::Path>) -> Self {
        let mut child = Command::new(super::btcpp_python())
            .arg(super::repo().join("tests/btcpp/publish.py"))
            .arg(port.to_string())
            .args(log)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut p = Self {
            port,
            child,
            input,
            lines,
        };
        assert_eq!(p.line(Duration::from_secs(30)).as_deref(), Some("ready"));
        p
    }

    /// Its publisher's address.
    pub fn address(&self) -> PublisherAddress {
        self.port.to_string().parse().unwrap()
    }

    /// Tells it `command` (publish.py says which).
    pub fn say(&mut self, command: &str) {
        writeln!(self.input, "{command}").unwrap();
        self.input.flush().unwrap();
    }

    /// Its next line, if one comes within `within`.
    pub fn line(&mut self, within: Duration) -> Option<String> {
        self.lines.recv_timeout(within).ok()
    }

    /// Its next line, read as JSON.
    pub fn json(&mut self, within: Duration) -> Option<serde_json::Value> {
        self.line(within).map(|l| serde_json::from_str(&l).unwrap())
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
