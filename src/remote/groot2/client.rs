//! The requests of Groot2's protocol (version 2), as a BehaviorTree.CPP program's
//! `Groot2Publisher` answers them (docs/BTCPP.md, "Live attach", has the messages).
//!
//! A request is a ZeroMQ multipart message to the publisher's REP socket on PORT: a header
//! of 6 bytes (the protocol, 2; the request's letter; a 4-byte id, little-endian), then
//! what the request needs. The reply repeats the header, adds the program's 16-byte id,
//! then what was asked; a request the publisher cannot do is answered `error`, WHY. The
//! publisher's PUB socket on PORT + 1 says when a breakpoint is reached.
//!
//! Every reply is bounded: a part of at most [`MAX_REPLY`] bytes (libzmq disconnects a peer
//! that sends more), at most four parts, within the time given; past that, the socket is
//! made again, so a silent or garbled publisher costs a timeout, never a hang. (libzmq
//! keeps the parts of a message until its last part comes: a peer that sends parts without
//! end is held in memory until the request's time is up and its socket goes.)

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The protocol spoken.
pub const PROTOCOL: u8 = 2;

/// The port a Groot2Publisher listens on unless its program says otherwise.
pub const DEFAULT_PORT: u16 = 1667;

/// The longest part of a reply taken: a tree's XML, as a file is read (64 MiB).
pub const MAX_REPLY: usize = 64 << 20;

/// The most parts a reply has (the header, the answer, and room to spare).
const MAX_PARTS: usize = 4;

/// Breakpoint notices taken from the publisher in one call, at most.
const MAX_NOTICES: usize = 64;

/// The longest notice taken (a header and a node's uid in words).
const MAX_NOTICE: i64 = 64;

/// The requests, by their letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Request {
    /// The tree's XML, with the models of its kinds.
    FullTree = b'T',
    /// Every node's status.
    Status = b'S',
    /// The values of some blackboards.
    Blackboard = b'B',
    /// A hook (a breakpoint) on a node.
    HookInsert = b'I',
    /// A hook taken away.
    HookRemove = b'R',
    /// A node held at its hook let go.
    BreakpointUnlock = b'U',
    /// Every hook taken away (and every node held let go).
    RemoveAllHooks = b'A',
    /// Start or stop keeping the status changes.
    ToggleRecording = b'r',
    /// The status changes kept since the last time asked.
    GetTransitions = b't',
}

/// What went wrong with a publisher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Nothing answers at its address.
    Absent,
    /// It stopped answering within the time given.
    Silent,
    /// It answered that it cannot do the request.
    Refused,
    /// It speaks another version of the protocol.
    Version,
    /// Its reply does not read.
    Garbled,
}

/// A publisher's fault, said in words that name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groot2Error {
    /// What kind of fault.
    pub fault: Fault,
    /// What is wrong, naming the publisher's address.
    pub message: String,
}

impl fmt::Display for Groot2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Groot2Error {}

/// Where a publisher listens: its requests at HOST:PORT, its notices at PORT + 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PublisherAddress {
    /// The host: a name, an IPv4 address or an IPv6 one.
    pub host: String,
    /// The port of its requests.
    pub port: u16,
}

impl fmt::Display for PublisherAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

impl FromStr for PublisherAddress {
    type Err = String;

    /// `PORT` (on this machine), `HOST:PORT` or `[IPV6]:PORT`.
    fn from_str(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let form = "it is PORT, HOST:PORT or [IPV6]:PORT, the port the program's Groot2Publisher was given (1667 unless it says otherwise)";
        let (host, port) = match text.rsplit_once(':') {
            None => ("127.0.0.1", text),
            Some((host, port)) => (host.trim_start_matches('[').trim_end_matches(']'), port),
        };
        let port: u16 = port
            .parse()
            .map_err(|_| format!("'{text}' has no port: {form}"))?;
        if port == 0 || port == u16::MAX {
            return Err(format!(
                "port {port} cannot be a publisher's: it listens on the port and the next one"
            ));
        }
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_');
        if host.is_empty() || host.len() > 253 || !host.chars().all(plain) {
            return Err(format!("'{host}' is not a host name or address: {form}"));
        }
        Ok(Self {
            host: host.to_owned(),
            port,
        })
    }
}

impl PublisherAddress {
    fn endpoint(&self, port: u16) -> String {
        if self.host.contains(':') {
            format!("tcp://[{}]:{port}", self.host)
        } else {
            format!("tcp://{}:{port}", self.host)
        }
    }
}

/// A connection to a Groot2Publisher: see the module's documentation.
pub struct Publisher {
    address: PublisherAddress,
    context: zmq::Context,
    requests: zmq::Socket,
    notices: zmq::Socket,
    next_id: u32,
    within: Duration,
}

impl Publisher {
    /// Connects to the publisher at `address`; each request waits at most `within` for its
    /// answer. Connecting itself waits for nothing: the first request says whether the
    /// publisher is there.
    pub fn connect(address: &PublisherAddress, within: Duration) -> Result<Self, Groot2Error> {
        let context = zmq::Context::new();
        let requests = request_socket(&context, address, within)?;
        let notices = context
            .socket(zmq::SUB)
            .and_then(|s| {
                s.set_linger(0)?;
                s.set_maxmsgsize(MAX_NOTICE)?;
                s.set_rcvhwm(1_000)?;
                s.set_subscribe(b"")?;
                s.connect(&address.endpoint(address.port + 1))?;
                Ok(s)
            })
            .map_err(|e| socket_error(address, &e))?;
        Ok(Self {
            address: address.clone(),
            context,
            requests,
            notices,
            next_id: 1,
            within,
        })
    }

    /// Its address.
    pub fn address(&self) -> &PublisherAddress {
        &self.address
    }

    /// Each request from now on waits at most `within` for its answer.
    pub fn set_within(&mut self, within: Duration) {
        let ms = i32::try_from(within.as_millis()).unwrap_or(i32::MAX).max(1);
        if self.requests.set_rcvtimeo(ms).is_ok() && self.requests.set_sndtimeo(ms).is_ok() {
            self.within = within;
        }
    }

    /// The tree the program runs, in XML, as BehaviorTree.CPP writes it with its nodes'
    /// uids and the models of its kinds.
    pub fn full_tree(&mut self) -> Result<String, Groot2Error> {
        let reply = self.request(Request::FullTree, None)?;
        String::from_utf8(reply).map_err(|_| self.garbled("its tree is not UTF-8 text"))
    }

    /// Every node's status, by uid: 0 idle, 1 running, 2 success, 3 failure, 4 skipped; 11,
    /// 12 and 13 idle again after running, success and failure.
    pub fn statuses(&mut self) -> Result<Vec<(u16, u8)>, Groot2Error> {
        let reply = self.request(Request::Status, None)?;
        if reply.len() % 3 != 0 {
            return Err(self.garbled(&format!(
                "its statuses are {} bytes, not 3 a node",
                reply.len()
            )));
        }
        Ok(reply
            .chunks_exact(3)
            .map(|c| (u16::from_le_bytes([c[0], c[1]]), c[2]))
            .collect())
    }

    /// The values of the blackboards `names` names (the tree's ID for the tree's own, a
    /// SubTree's path for its), by name: each an object of its keys' values, or null when
    /// it holds none.
    pub fn blackboards(
        &mut self,
        names: &[&str],
    ) -> Result<serde_json::Map<String, serde_json::Value>, Groot2Error> {
        let asked = names.join(";");
        let reply = self.request(Request::Blackboard, Some(asked.as_bytes()))?;
        match rmp_serde::from_slice::<serde_json::Value>(&reply) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            Ok(serde_json::Value::Null) => Ok(serde_json::Map::new()),
            Ok(_) => Err(self.garbled("its blackboards are not an object")),
            Err(e) => Err(self.garbled(&format!("its blackboards do not read: {e}"))),
        }
    }

    /// Starts keeping the program's status changes (those kept before are dropped).
    pub fn start_recording(&mut self) -> Result<(), Groot2Error> {
        self.request(Request::ToggleRecording, Some(b"start"))
            .map(|_| ())
    }

    /// Stops keeping them.
    pub fn stop_recording(&mut self) -> Result<(), Groot2Error> {
        self.request(Request::ToggleRecording, Some(b"stop"))
            .map(|_| ())
    }

    /// The status changes kept since the last call: µs since the recording started, the
    /// node's uid, its new status (BehaviorTree.CPP keeps the last 1,000).
    pub fn transitions(&mut self) -> Result<Vec<(u64, u16, u8)>, Groot2Error> {
        let reply = self.request(Request::GetTransitions, None)?;
        let (changes, tail) = crate::io::read_changes(&reply);
        if tail > 0 {
            return Err(self.garbled(&format!(
                "its status changes are {} bytes, not 9 a change",
                reply.len()
            )));
        }
        Ok(changes)
    }

    /// A hook on node `uid` (one a node; this one replaces the one before): with
    /// `replace` `None`, a breakpoint, which holds the program before each tick of the
    /// node until [`Publisher::unlock`]; with a status (2 success, 3 failure), the node
    /// reports it instead of running (BehaviorTree.CPP's substitution).
    pub fn insert_hook(&mut self, uid: u16, replace: Option<u8>) -> Result<(), Groot2Error> {
        let (mode, status) = match replace {
            None => (0, "SKIPPED"),
            Some(2) => (1, "SUCCESS"),
            Some(_) => (1, "FAILURE"),
        };
        let hook = serde_json::json!({
            "enabled": true,
            "uid": uid,
            "mode": mode,
            "once": false,
            "desired_status": status,
            "position": 0,
        });
        self.request(Request::HookInsert, Some(hook.to_string().as_bytes()))
            .map(|_| ())
    }

    /// Takes node `uid`'s hook away (a node held there is let go).
    pub fn remove_breakpoint(&mut self, uid: u16) -> Result<(), Groot2Error> {
        let hook = serde_json::json!({"uid": uid, "position": 0});
        self.request(Request::HookRemove, Some(hook.to_string().as_bytes()))
            .map(|_| ())
    }

    /// Lets the program held at node `uid`'s breakpoint go on: the node ticks as usual.
    pub fn unlock(&mut self, uid: u16) -> Result<(), Groot2Error> {
        let unlock = serde_json::json!({
            "uid": uid,
            "desired_status": "SKIPPED",
            "position": 0,
            "remove_when_done": false,
        });
        self.request(
            Request::BreakpointUnlock,
            Some(unlock.to_string().as_bytes()),
        )
        .map(|_| ())
    }

    /// Takes every breakpoint away, letting the program go on.
    pub fn remove_all_hooks(&mut self) -> Result<(), Groot2Error> {
        self.request(Request::RemoveAllHooks, None).map(|_| ())
    }

    /// The nodes whose breakpoint the program reached since the last call, by uid, in
    /// order (at most 64 a call; notices that do not read are passed over).
    pub fn breakpoints_reached(&mut self) -> Vec<u16> {
        let mut reached = Vec::new();
        while reached.len() < MAX_NOTICES {
            let Ok(parts) = receive(&self.notices, zmq::DONTWAIT) else {
                break;
            };
            let uid = match parts.as_slice() {
                [head, uid] if head.len() == 6 && head[1] == b'N' => std::str::from_utf8(uid)
                    .ok()
                    .and_then(|u| u.trim().parse::<u16>().ok()),
                _ => None,
            };
            reached.extend(uid);
        }
        reached
    }

    /// Asks `kind` (with `body`), and gives the reply's answer: a reply that says `error`
    /// is refused; one whose header is not the request's, or of another protocol, garbled.
    /// The socket is made again after a fault, so the next request starts clean.
    fn request(&mut self, kind: Request, body: Option<&[u8]>) -> Result<Vec<u8>, Groot2Error> {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let mut head = vec![PROTOCOL, kind as u8];
        head.extend_from_slice(&id.to_le_bytes());
        let result = self.exchange(&head, body);
        if result
            .as_ref()
            .is_err_and(|e| matches!(e.fault, Fault::Absent | Fault::Silent | Fault::Garbled))
        {
            // A REQ socket waits for the answer it did not get: a new one starts clean.
            match request_socket(&self.context, &self.address, self.within) {
                Ok(s) => self.requests = s,
                Err(e) => return Err(e),
            }
        }
        result
    }

    fn exchange(&mut self, head: &[u8], body: Option<&[u8]>) -> Result<Vec<u8>, Groot2Error> {
        let sent = match body {
            Some(body) => self.requests.send_multipart([head, body], 0),
            None => self.requests.send(head, 0),
        };
        match sent {
            Ok(()) => {}
            Err(zmq::Error::EAGAIN) => {
                return Err(Groot2Error {
                    fault: Fault::Absent,
                    message: format!(
                        "nothing answers at {}: is the program running, with a Groot2Publisher on that port?",
                        self.address
                    ),
                });
            }
            Err(e) => return Err(socket_error(&self.address, &e)),
        }
        let parts = match receive(&self.requests, 0) {
            Ok(parts) => parts,
            Err(Received::Nothing) => {
                return Err(Groot2Error {
                    fault: Fault::Silent,
                    message: format!(
                        "{} did not answer within {} ms",
                        self.address,
                        self.within.as_millis()
                    ),
                });
            }
            Err(Received::TooMany) => {
                return Err(self.garbled(&format!("a reply of more than {MAX_PARTS} parts")));
            }
            Err(Received::Failed(e)) => return Err(socket_error(&self.address, &e)),
        };
        let mut parts = parts.into_iter();
        let reply = parts.next().unwrap_or_default();
        if reply == b"error" {
            let why = parts.next().unwrap_or_default();
            let why = crate::remote::quoted(&String::from_utf8_lossy(&why));
            return Err(Groot2Error {
                fault: Fault::Refused,
                message: format!("{} refused the request: {why}", self.address),
            });
        }
        if reply.len() != 22 {
            return Err(self.garbled(&format!("a reply header of {} bytes, not 22", reply.len())));
        }
        if reply[0] != PROTOCOL {
            return Err(Groot2Error {
                fault: Fault::Version,
                message: format!(
                    "{} speaks version {} of Groot2's protocol; Arbor speaks version {PROTOCOL} (BehaviorTree.CPP 4)",
                    self.address, reply[0]
                ),
            });
        }
        if reply[1..6] != head[1..6] {
            return Err(self.garbled("a reply to another request"));
        }
        Ok(parts.next().unwrap_or_default())
    }

    fn garbled(&self, what: &str) -> Groot2Error {
        Groot2Error {
            fault: Fault::Garbled,
            message: format!(
                "{} sent what Groot2's protocol does not say: {what}",
                self.address
            ),
        }
    }
}

/// Why [`receive`] gave nothing.
enum Received {
    /// Nothing came in time.
    Nothing,
    /// More parts than a reply has.
    TooMany,
    /// The socket failed.
    Failed(zmq::Error),
}

/// One whole message of at most [`MAX_PARTS`] parts (a longer one is read through and
/// refused, so the socket is left between messages: libzmq hands a message over only
/// whole, so its parts are all there).
fn receive(socket: &zmq::Socket, flags: i32) -> Result<Vec<Vec<u8>>, Received> {
    let mut parts = Vec::new();
    let mut more = true;
    let mut too_many = false;
    while more {
        let part = socket.recv_bytes(flags).map_err(|e| match e {
            zmq::Error::EAGAIN => Received::Nothing,
            e => Received::Failed(e),
        })?;
        more = socket.get_rcvmore().map_err(Received::Failed)?;
        if parts.len() == MAX_PARTS {
            too_many = true;
        } else {
            parts.push(part);
        }
    }
    if too_many {
        return Err(Received::TooMany);
    }
    Ok(parts)
}

/// A REQ socket to `address`: it sends only while connected (so a publisher that is not
/// there is said when the send's time is up, not waited for after), drops what it has not
/// sent when it is closed, and bounds and times what it takes.
fn request_socket(
    context: &zmq::Context,
    address: &PublisherAddress,
    within: Duration,
) -> Result<zmq::Socket, Groot2Error> {
    let ms = i32::try_from(within.as_millis()).unwrap_or(i32::MAX).max(1);
    context
        .socket(zmq::REQ)
        .and_then(|s| {
            s.set_linger(0)?;
            s.set_immediate(true)?;
            s.set_maxmsgsize(MAX_REPLY as i64)?;
            s.set_rcvhwm(4)?;
            s.set_rcvtimeo(ms)?;
            s.set_sndtimeo(ms)?;
            s.set_reconnect_ivl(100)?;
            s.set_reconnect_ivl_max(1_000)?;
            s.connect(&address.endpoint(address.port))?;
            Ok(s)
        })
        .map_err(|e| socket_error(address, &e))
}

fn socket_error(address: &PublisherAddress, e: &zmq::Error) -> Groot2Error {
    Groot2Error {
        fault: Fault::Absent,
        message: format!("cannot reach {address}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_a_port_or_a_host_and_port() {
        let a = |t: &str| t.parse::<PublisherAddress>();
        assert_eq!(
            a("1667").map(|a| a.to_string()),
            Ok("127.0.0.1:1667".to_owned())
        );
        assert_eq!(
            a("robot.local:1700").map(|a| a.to_string()),
            Ok("robot.local:1700".to_owned())
        );
        assert_eq!(
            a("[::1]:1667").map(|a| a.to_string()),
            Ok("[::1]:1667".to_owned())
        );
        for bad in [
            "",
            "x",
            "host:",
            "host:99999",
            "host:65535",
            ":0",
            "a b:1667",
            "h/x:1",
        ] {
            assert!(a(bad).is_err(), "{bad}");
        }
    }
}
