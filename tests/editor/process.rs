//! The real editor process, under Xvfb, driven with xdotool: its unsaved work is written
//! aside while it runs, survives a kill, and is offered back at the next start.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbor::editor::EditorApp;
use arbor::io::RecoveryDir;
use eframe::egui;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Kills the child when dropped, whatever happens in the test.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An X server of its own, stopped with SIGTERM when dropped so that it removes its lock
/// file and socket (a killed one leaves them, and the display looks taken from then on).
struct Xvfb(Child);

impl Xvfb {
    /// Starts one on a display it finds free (`-displayfd`) and returns it with the
    /// display's name, once the server is ready.
    fn start() -> (Self, String) {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1600x1000x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut number = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut number)
            .unwrap();
        let server = Self(child);
        assert!(
            !number.trim().is_empty(),
            "Xvfb did not start (no display number)"
        );
        (server, format!(":{}", number.trim()))
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

/// Waits up to `secs` for `f` to give something.
fn wait_for<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = f() {
            return t;
        }
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "waited {secs} s for {what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The recovery files in `dir`.
fn written(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect()
        })
        .unwrap_or_default()
}

/// The tests here run real editor windows one test at a time: two software-rendered
/// windows starting at once on a 2-core machine can take long enough to time out.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Whether this machine can run the real editor under Xvfb (CI must).
fn can_run_the_window() -> bool {
    if have("Xvfb") && have("xdotool") {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI has Xvfb and xdotool (scripts/setup.sh installs them)"
    );
    eprintln!("skipped: needs Xvfb and xdotool (scripts/setup.sh installs them)");
    false
}

/// The real editor on `tree`, started with `args` after `edit TREE` on `display`, writing
/// recovery files in `recovery` and keeping its settings, data and live card beside it;
/// with its window's id once the window is up.
fn launch(tree: &Path, display: &str, recovery: &Path, args: &[&str]) -> (Killed, String) {
    let home = recovery.parent().unwrap();
    // What the editor says on standard error, for the message of a start that fails.
    let said = home.join("editor-stderr.txt");
    let mut editor = Killed(
        Command::new(env!("CARGO_BIN_EXE_arbor"))
            .arg("edit")
            .arg(tree)
            .args(args)
            .env("DISPLAY", display)
            .env("WAYLAND_DISPLAY", "")
            .env("ARBOR_RECOVERY_DIR", recovery)
            .env("ARBOR_LIVE_DIR", home.join("live"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&said).unwrap())
            .spawn()
            .unwrap(),
    );
    let name = tree.file_stem().unwrap().to_string_lossy().into_owned();
    let window = wait_for(90, "the editor's window", || {
        // An editor that exited will show no window: said at once, with its reason.
        if let Ok(Some(status)) = editor.0.try_wait() {
            panic!(
                "the editor exited ({status}) before its window showed: {}",
                std::fs::read_to_string(&said).unwrap_or_default()
            );
        }
        let found = xdotool(display, &["search", "--onlyvisible", "--name", &name]);
        found.lines().next().map(str::to_owned)
    });
    (editor, window)
}

/// The real editor on `tree`, writing recovery files in `recovery`, on `display`; once
/// its window is up, with the screen position of the palette's Sequence button.
fn start_editor(tree: &Path, recovery: &Path, display: &str) -> (Killed, egui::Pos2) {
    // Where the palette's Sequence button is: the same app laid out at the window's size.
    let button = {
        let mut h = Harness::builder()
            .with_size(egui::vec2(1400.0, 860.0))
            .build_eframe(|_cc| EditorApp::open(tree).unwrap());
        h.run_steps(4);
        h.get_by_role_and_label(Role::Button, "Sequence")
            .rect()
            .center()
    };
    let (editor, window) = launch(tree, display, recovery, &[]);
    let geometry = xdotool(display, &["getwindowgeometry", "--shell", &window]);
    let field = |name: &str| -> f32 {
        geometry
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0)
    };
    (
        editor,
        egui::pos2(field("X") + button.x, field("Y") + button.y),
    )
}

/// Clicks at `at` (the palette's Sequence button: a node is added, the tree has unsaved
/// work) until a recovery file appears in `recovery`; that file. (Clicked until the first
/// frames are drawn and the click lands.)
fn add_a_node_until_written_aside(display: &str, at: egui::Pos2, recovery: &Path) -> PathBuf {
    wait_for(60, "a recovery file", || {
        if written(recovery).is_empty() {
            xdotool(
                display,
                &[
                    "mousemove",
                    &format!("{:.0}", at.x),
                    &format!("{:.0}", at.y),
                ],
            );
            std::thread::sleep(Duration::from_millis(300));
            xdotool(display, &["click", "1"]);
            std::thread::sleep(Duration::from_millis(3000));
        }
        written(recovery).into_iter().next()
    })
}

/// What a test of the real editor works with: the sketch copied into a folder of its own,
/// and an X server, one such test at a time.
struct Sketch {
    _one: std::sync::MutexGuard<'static, ()>,
    dir: tempfile::TempDir,
    tree: PathBuf,
    _xvfb: Xvfb,
    display: String,
}

impl Sketch {
    /// `None` where the real editor cannot run (no Xvfb or xdotool, outside CI).
    fn under_xvfb() -> Option<Self> {
        if !can_run_the_window() {
            return None;
        }
        let _one = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::tempdir().unwrap();
        common::copy_samples(dir.path(), &["mock_sketch.json"]);
        let tree = dir.path().join("mock_sketch.json");
        let (_xvfb, display) = Xvfb::start();
        Some(Self {
            _one,
            dir,
            tree,
            _xvfb,
            display,
        })
    }
}

#[test]
fn unsaved_work_survives_a_kill_of_the_real_editor_and_is_restored_at_the_next_start() {
    let Some(sketch) = Sketch::under_xvfb() else {
        return;
    };
    let Sketch {
        tree, display, dir, ..
    } = &sketch;
    let on_disk = arbor::io::load_tree(tree).unwrap();
    let recovery = dir.path().join("recovery");
    let (mut editor, button) = start_editor(tree, &recovery, display);
    let file = add_a_node_until_written_aside(display, button, &recovery);
    // Killed, as by a crash: nothing is cleaned up.
    editor.0.kill().unwrap();
    editor.0.wait().unwrap();
    let recovered = RecoveryDir::read(&file).expect("a whole recovery file");
    assert!(recovered.tree.nodes().len() > on_disk.nodes().len());
    assert!(
        recovered
            .tree
            .nodes()
            .iter()
            .any(|n| n.kind == "Sequence" && on_disk.node(&n.id).is_none())
    );
    assert_eq!(
        arbor::io::load_tree(tree).unwrap(),
        on_disk,
        "the tree file is untouched"
    );

    // The next start offers it back.
    let mut h = common::harness(
        EditorApp::open(tree)
            .unwrap()
            .with_recovery(RecoveryDir::new(&recovery)),
    );
    h.get_by_label_contains("Recovered work");
    h.get_by_role_and_label(Role::Button, "Restore").click();
    h.run_steps(3);
    assert_eq!(*h.state().tree(), recovered.tree);
    assert!(h.state().is_dirty());
}

#[test]
fn a_second_editor_on_the_same_tree_names_the_first_and_each_ones_work_survives_a_kill() {
    let Some(sketch) = Sketch::under_xvfb() else {
        return;
    };
    let Sketch {
        tree, display, dir, ..
    } = &sketch;
    let recovery = dir.path().join("recovery");
    let (mut first, button) = start_editor(tree, &recovery, display);
    let first_file = add_a_node_until_written_aside(display, button, &recovery);
    let first_work = RecoveryDir::read(&first_file).unwrap().tree;

    // A second editor (this test's process) opens the same tree: it names the first, and
    // does not offer the first one's work, which is still being edited.
    let mut h = common::harness(
        EditorApp::open(tree)
            .unwrap()
            .with_recovery(RecoveryDir::new(&recovery)),
    );
    assert!(
        h.state().said(&format!(
            "mock_sketch.json is also open in another Arbor (process {})",
            first.0.id()
        )),
        "{}",
        h.state().last_message()
    );
    assert!(h.query_by_label_contains("Recovered work").is_none());

    // Its own unsaved work goes to a file of its own.
    h.get_by_role_and_label(Role::Button, "Selector").click();
    let mine = (0..3600)
        .find_map(|_| {
            h.run_steps(1);
            h.state().recovery_file().map(Path::to_owned)
        })
        .expect("the second editor's work written aside");
    assert_ne!(mine, first_file);
    let my_work = h.state().tree().clone();
    assert_eq!(RecoveryDir::read(&first_file).unwrap().tree, first_work);

    // Both are killed: both pieces of work are there, each whole.
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    drop(h);
    assert_eq!(RecoveryDir::read(&first_file).unwrap().tree, first_work);
    assert_eq!(RecoveryDir::read(&mine).unwrap().tree, my_work);
    let found = RecoveryDir::new(&recovery).find(Some(tree)).found.unwrap();
    assert!(found.file == first_file || found.file == mine);
}

/// The CPU time (user and system) process `pid` has used, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's name, which is in parentheses and may hold spaces:
    // utime and stime are the 14th and 15th fields of the line.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// The share of one core the real editor on `tree` uses while nobody touches it, measured
/// over `seconds` once its window is up, started with `args` after `edit TREE`.
fn idle_share(tree: &Path, display: &str, args: &[&str], seconds: u64) -> f64 {
    let home = tree.parent().unwrap();
    let (editor, _) = launch(tree, display, &home.join("recovery"), args);
    // Its first frames drawn and settled.
    std::thread::sleep(Duration::from_secs(3));
    let pid = editor.0.id();
    let (start, before) = (Instant::now(), cpu_ticks(pid));
    std::thread::sleep(Duration::from_secs(seconds));
    let used = cpu_ticks(pid) - before;
    let ticks_per_second = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(100.0);
    used as f64 / ticks_per_second / start.elapsed().as_secs_f64()
}

/// Run when asked (`cargo test --test editor -- --ignored idle`; figures in
/// docs/EDITOR.md): the real editor under Xvfb, left alone for ten seconds with live
/// attach on, as it starts by default, uses next to no CPU: it draws only when something
/// changed (a game came, sent or ended), not on a timer. The same with `--listen off`
/// is printed beside it.
#[test]
#[ignore = "measures CPU for about 30 s under Xvfb; run when asked"]
fn an_idle_editor_with_live_attach_on_uses_next_to_no_cpu() {
    let Some(sketch) = Sketch::under_xvfb() else {
        return;
    };
    let Sketch { tree, display, .. } = &sketch;
    let on = idle_share(tree, display, &[], 10);
    let off = idle_share(tree, display, &["--listen", "off"], 10);
    eprintln!(
        "idle editor: {:.1} % of a core with live attach on, {:.1} % with --listen off",
        on * 100.0,
        off * 100.0
    );
    assert!(
        on < 0.03,
        "an idle editor with live attach on uses {:.1} % of a core",
        on * 100.0
    );
}
