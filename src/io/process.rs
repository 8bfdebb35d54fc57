//! Which Arbor process holds something (a recovery file, an open file's mark) and whether
//! it still runs. A process is named by its id and its start time, so an id the system
//! has given to another process since is not taken for it.

use serde::{Deserialize, Serialize};

/// A process: its id, and when it started (in the system's clock ticks since boot; 0
/// where the system does not say).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// The process id.
    pub pid: u32,
    /// When it started, to tell it from a later process given the same id.
    #[serde(default)]
    pub started: u64,
}

impl Owner {
    /// This process.
    pub fn current() -> Self {
        let pid = std::process::id();
        Self {
            pid,
            started: start_time(pid).unwrap_or(0),
        }
    }

    /// Whether this is the running process.
    pub fn is_current(&self) -> bool {
        *self == Self::current()
    }

    /// Whether the process still runs. Where the system cannot say, it is taken as running,
    /// so that nothing it holds is taken from it.
    pub fn is_alive(&self) -> bool {
        if self.is_current() {
            return true;
        }
        if cfg!(target_os = "linux") {
            // Gone, or the id now names a process that started at another time.
            return start_time(self.pid).is_some_and(|s| self.started == 0 || s == self.started);
        }
        #[cfg(unix)]
        {
            std::process::Command::new("kill")
                .args(["-0", &self.pid.to_string()])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        }
        #[cfg(not(unix))]
        {
            true
        }
    }
}

/// When process `pid` started, from `/proc/PID/stat` (Linux); `None` when it is not running
/// (gone, or dead and waiting for its parent to collect it: a zombie).
fn start_time(pid: u32) -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (name) state ppid …": the name may hold spaces and parentheses; the fields
    // after its last ')' are fixed: the state first, the start time the 20th.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    if matches!(fields.next(), Some("Z" | "X" | "x")) {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_finished_one_is_not() {
        let me = Owner::current();
        assert!(me.is_alive() && me.is_current());
        if cfg!(target_os = "linux") {
            assert_ne!(me.started, 0);
            let mut child = std::process::Command::new("true")
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start `true`: {e}");
                });
            let pid = child.id();
            let _ = child.wait();
            let gone = Owner { pid, started: 1 };
            assert!(!gone.is_alive());
            // The running process's id with another start time: a reused id, not it.
            let reused = Owner {
                pid: me.pid,
                started: me.started + 1,
            };
            assert!(!reused.is_alive());
            // Dead but not yet collected by its parent (a zombie): not running.
            let mut zombie = std::process::Command::new("true")
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("cannot start `true`: {e}");
                });
            std::thread::sleep(std::time::Duration::from_millis(300));
            let owner = Owner {
                pid: zombie.id(),
                started: 0,
            };
            assert!(!owner.is_alive());
            let _ = zombie.wait();
        }
    }
}
