//! No work lost around saving: read-only files, temporary files left by a kill, recovery
//! files of two editors, links and special files in Arbor's own folders, and settings
//! files with bad values. Headless: the editor's side is in tests/editor/disk.rs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::{Child, Command};

use arbor::io::{
    LoadError, Owner, RecoveryDir, Settings, SettingsFile, Stamp, load_tree, save_tree,
    write_atomically,
};

/// A process that runs until dropped: "another editor" that is alive.
struct Running(Child);

impl Running {
    fn start() -> Self {
        Self(Command::new("sleep").arg("600").spawn().unwrap())
    }

    fn owner(&self) -> Owner {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.0.id())).unwrap();
        let rest = &stat[stat.rfind(')').unwrap() + 1..];
        Owner {
            pid: self.0.id(),
            started: rest.split_whitespace().nth(19).unwrap().parse().unwrap(),
        }
    }

    fn stop(mut self) -> Owner {
        let owner = self.owner();
        self.0.kill().unwrap();
        self.0.wait().unwrap();
        owner
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tree` with its `n`th node titled `title`.
fn titled(tree: &arbor::model::Tree, n: usize, title: &str) -> arbor::model::Tree {
    let mut t = tree.clone();
    let id = t.nodes()[n].id.clone();
    t.apply(
        arbor::model::Edit::SetTitle {
            id,
            title: title.into(),
        },
        &arbor::model::Catalog::builtin(),
    )
    .unwrap();
    t
}

fn read_only(path: &Path) {
    let mut p = std::fs::metadata(path).unwrap().permissions();
    p.set_readonly(true);
    std::fs::set_permissions(path, p).unwrap();
}

fn arbor(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn a_read_only_tree_is_refused_by_save_and_by_fmt_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let file = dir.path().join("door_room.json");
    // Not canonical, so that fmt would write it.
    let text = std::fs::read_to_string(&file).unwrap().replace("\n", "\n ");
    std::fs::write(&file, &text).unwrap();
    read_only(&file);

    let tree = load_tree(&file).unwrap();
    let e = save_tree(&file, &tree).unwrap_err();
    assert!(matches!(e, LoadError::ReadOnly { .. }), "{e}");
    assert!(e.to_string().contains("door_room.json"), "{e}");
    assert!(e.to_string().contains("read-only"), "{e}");
    assert!(matches!(
        write_atomically(&file, b"{}"),
        Err(LoadError::ReadOnly { .. })
    ));

    let out = arbor(&["fmt", "door_room.json"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("door_room.json") && stderr.contains("read-only"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    assert!(std::fs::metadata(&file).unwrap().permissions().readonly());
}

#[test]
fn temporary_files_left_by_a_killed_save_are_removed_and_a_running_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let file = dir.path().join("door_room.json");
    let alive = Running::start();
    let gone = Running::start().stop();
    let left = dir.path().join(format!(".door_room.json.{}.tmp", gone.pid));
    let busy = dir
        .path()
        .join(format!(".door_room.json.{}.tmp", alive.0.id()));
    std::fs::write(&left, "half a tree").unwrap();
    std::fs::write(&busy, "another process saving").unwrap();
    // An unrelated dot file stays too.
    let other = dir.path().join(".door_room.json.notes");
    std::fs::write(&other, "mine").unwrap();

    save_tree(&file, &load_tree(&file).unwrap()).unwrap();
    assert!(!left.exists(), "a killed save's temporary file is removed");
    assert!(busy.exists(), "a running process's temporary file stays");
    assert!(other.exists());
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn a_write_error_names_the_folder_it_could_not_write_in() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no such folder").join("tree.json");
    let e = write_atomically(&missing, b"{}").unwrap_err().to_string();
    assert!(e.contains("no such folder"), "{e}");
}

#[test]
fn autosave_never_writes_through_a_link_or_over_a_special_file_in_the_recovery_folder() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree_file = dir.path().join("door_room.json");
    let tree = load_tree(&tree_file).unwrap();
    let recovery = RecoveryDir::new(dir.path().join("recovery"));
    std::fs::create_dir_all(recovery.dir()).unwrap();
    let victim = dir.path().join("precious.txt");
    std::fs::write(&victim, "the user's file").unwrap();
    let planted = recovery.file_for(Some(&tree_file));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();

    let e = recovery.write(Some(&tree_file), None, &tree).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's file");
    assert!(
        std::fs::symlink_metadata(&planted)
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A FIFO at the name: refused at once (no write blocks on it).
    std::fs::remove_file(&planted).unwrap();
    let status = Command::new("mkfifo").arg(&planted).status().unwrap();
    assert!(status.success());
    let e = recovery.write(Some(&tree_file), None, &tree).unwrap_err();
    assert!(e.to_string().contains("FIFO"), "{e}");

    // Found while looking for work: reported, and left where it is.
    std::fs::remove_file(&planted).unwrap();
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let found = recovery.find(Some(&tree_file));
    assert!(found.found.is_none());
    assert_eq!(found.unreadable.len(), 1);
    assert!(found.unreadable[0].reason.contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "the user's file");
}

#[test]
fn unreadable_recovery_files_and_unknown_versions_are_reported_and_kept_aside() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree_file = dir.path().join("door_room.json");
    let tree = load_tree(&tree_file).unwrap();
    let recovery = RecoveryDir::new(dir.path().join("recovery"));
    let written = recovery.write(Some(&tree_file), None, &tree).unwrap();
    let text = std::fs::read_to_string(&written).unwrap();
    // Files of two other (gone) editors for the same tree.
    let other = |pid| {
        RecoveryDir::new(recovery.dir())
            .as_owner(Owner { pid, started: 1 })
            .file_for(Some(&tree_file))
    };
    let newer = other(1);
    std::fs::write(&newer, text.replace("\"version\": 1", "\"version\": 99")).unwrap();
    let garbage = other(2);
    std::fs::write(&garbage, &text[..text.len() / 2]).unwrap();

    let found = recovery.find(Some(&tree_file));
    assert_eq!(found.found.unwrap().file, written);
    assert_eq!(found.unreadable.len(), 2, "{:?}", found.unreadable);
    let reasons: Vec<&str> = found.unreadable.iter().map(|u| u.reason.as_str()).collect();
    assert!(
        reasons.iter().any(|r| r.contains("version 99")),
        "{reasons:?}"
    );
    for u in &found.unreadable {
        assert!(u.file.to_string_lossy().ends_with(".unreadable"), "{u:?}");
        assert!(u.file.exists());
    }
    assert!(!newer.exists() && !garbage.exists());
    // Kept as they were.
    let kept: Vec<String> = found
        .unreadable
        .iter()
        .map(|u| std::fs::read_to_string(&u.file).unwrap())
        .collect();
    assert!(kept.contains(&text[..text.len() / 2].to_owned()));
    // A second look finds them aside and does not move them again.
    assert!(recovery.find(Some(&tree_file)).unreadable.is_empty());
    // A file of the folder that is not named for the tree is never read nor moved.
    let mine = recovery.dir().join("notes.json");
    std::fs::write(&mine, "not a recovery file").unwrap();
    assert!(recovery.find(Some(&tree_file)).unreadable.is_empty());
    assert!(recovery.find(None).unreadable.is_empty());
    assert!(mine.exists());
}

#[test]
fn two_editors_on_one_tree_keep_their_own_recovery_files_and_a_running_ones_work_is_not_offered() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree_file = dir.path().join("door_room.json");
    let tree = load_tree(&tree_file).unwrap();
    let theirs = titled(&tree, 1, "Theirs");
    let other = Running::start();
    let folder = dir.path().join("recovery");
    let them = RecoveryDir::new(&folder).as_owner(other.owner());
    let me = RecoveryDir::new(&folder);
    let their_file = them.write(Some(&tree_file), None, &theirs).unwrap();
    let my_file = me.write(Some(&tree_file), None, &tree).unwrap();
    assert_ne!(their_file, my_file);
    // Mine is removed when I save: theirs stays.
    RecoveryDir::remove(&my_file);
    assert!(their_file.exists());

    // While the other editor runs, its work is its own.
    assert!(me.find(Some(&tree_file)).found.is_none());
    // Killed: its work is offered.
    drop(other);
    let found = me.find(Some(&tree_file)).found.unwrap();
    assert_eq!(found.file, their_file);
    assert_eq!(found.tree, theirs);
}

#[test]
fn a_tree_open_in_another_editor_is_named_and_a_mark_left_by_a_crash_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree_file = dir.path().join("door_room.json");
    let folder = dir.path().join("recovery");
    let other = Running::start();
    let (their_mark, none) = RecoveryDir::new(&folder)
        .as_owner(other.owner())
        .mark_open(&tree_file);
    assert!(none.is_empty());
    let their_mark = their_mark.unwrap();
    let (mine, others) = RecoveryDir::new(&folder).mark_open(&tree_file);
    assert!(mine.is_some());
    assert_eq!(others, [other.owner()]);
    // The other editor is killed: its mark stays on disk, but is stale.
    std::mem::forget(their_mark);
    drop(other);
    let (_again, others) = RecoveryDir::new(&folder).mark_open(&tree_file);
    assert!(others.is_empty());
    let marks = std::fs::read_dir(&folder)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "open")
        .count();
    assert_eq!(marks, 1, "the stale mark is removed");
}

#[test]
fn recovered_work_whose_file_changed_on_disk_since_says_so_and_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree_file = dir.path().join("door_room.json");
    let (tree, stamp) = arbor::io::load_tree_stamped(&tree_file).unwrap();
    let work = titled(&tree, 1, "Mine");
    let recovery = RecoveryDir::new(dir.path().join("recovery"));
    recovery
        .write(Some(&tree_file), Some(stamp), &work)
        .unwrap();
    let found = recovery.find(Some(&tree_file)).found.unwrap();
    assert_eq!(found.changed_on_disk(), None);

    // Someone else changes the file since (a git pull).
    let pulled = titled(&tree, tree.len() - 1, "Theirs");
    save_tree(&tree_file, &pulled).unwrap();
    let found = recovery.find(Some(&tree_file)).found.unwrap();
    assert_eq!(
        found.changed_on_disk(),
        Some(arbor::io::DiskChange::Content)
    );
    let diff = found.differences(&pulled, 100).join("\n");
    assert!(diff.contains("+ ") && diff.contains("Mine"), "{diff}");
    assert!(diff.contains("- ") && diff.contains("Theirs"), "{diff}");
    assert!(
        found
            .differences(&pulled, 2)
            .last()
            .unwrap()
            .contains("more lines")
    );
}

#[test]
fn stamps_follow_the_content_not_the_time() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.json");
    std::fs::write(&f, "abc").unwrap();
    let s = Stamp::read(&f).unwrap();
    std::fs::write(&f, "abc").unwrap();
    assert_eq!(Stamp::read(&f), Some(s));
    std::fs::write(&f, "abd").unwrap();
    assert_ne!(Stamp::read(&f), Some(s));
    assert_eq!(Stamp::read(&dir.path().join("none")), None);
}

#[test]
fn settings_with_bad_values_are_reset_with_a_message_and_never_stop_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::new(dir.path().join("settings.json"));
    for zoom in ["0", "-1", "1000", "1e308"] {
        std::fs::write(
            file.path(),
            format!(r#"{{"format": "arbor.settings", "version": 1, "zoom": {zoom}, "recent": ["/a.json"]}}"#),
        )
        .unwrap();
        let (s, problems) = file.load();
        assert_eq!(s.zoom, 1.0, "{zoom}");
        assert_eq!(s.recent.len(), 1, "the rest is kept");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("zoom"), "{problems:?}");
    }
    std::fs::write(
        file.path(),
        r#"{"format": "arbor.settings", "version": 1, "window": {"width": 0, "height": 1e9, "x": null, "y": null}}"#,
    )
    .unwrap();
    let (s, problems) = file.load();
    assert_eq!(s.window, None);
    assert!(problems[0].contains("window"), "{problems:?}");
}

#[test]
fn a_corrupt_or_special_settings_file_is_kept_aside_and_the_user_told() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let file = SettingsFile::new(&path);
    let aside = dir.path().join("settings.json.unreadable");
    /// What the file is, and how it is made.
    type Case<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let cases: Vec<Case> = vec![
        (
            "not a settings file",
            Box::new(|| std::fs::write(&path, "{\"recent\": [").unwrap()),
        ),
        (
            "version 7",
            Box::new(|| {
                std::fs::write(&path, r#"{"format": "arbor.settings", "version": 7}"#).unwrap()
            }),
        ),
        (
            "NaN",
            Box::new(|| {
                std::fs::write(
                    &path,
                    r#"{"format": "arbor.settings", "version": 1, "zoom": NaN}"#,
                )
                .unwrap()
            }),
        ),
        (
            "FIFO",
            Box::new(|| {
                assert!(
                    Command::new("mkfifo")
                        .arg(&path)
                        .status()
                        .unwrap()
                        .success()
                )
            }),
        ),
        // A link to a device (it would never end).
        (
            "device",
            Box::new(|| std::os::unix::fs::symlink("/dev/zero", &path).unwrap()),
        ),
        (
            "bytes",
            Box::new(|| std::fs::write(&path, vec![b' '; 2 << 20]).unwrap()),
        ),
    ];
    for (what, make) in cases {
        make();
        let (s, problems) = file.load();
        assert_eq!(s, Settings::default(), "{what}");
        assert_eq!(problems.len(), 1, "{what}: {problems:?}");
        let expected = if what == "NaN" {
            "not a settings file"
        } else {
            what
        };
        assert!(problems[0].contains(expected), "{what}: {problems:?}");
        assert!(
            problems[0].contains("settings.json.unreadable"),
            "{problems:?}"
        );
        assert!(
            std::fs::symlink_metadata(&aside).is_ok(),
            "{what}: kept aside"
        );
        assert!(std::fs::symlink_metadata(&path).is_err(), "{what}");
        std::fs::remove_file(&aside).unwrap();
    }
}

#[test]
fn settings_are_written_whole_through_a_rename_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::new(dir.path().join("deep/er/settings.json"));
    let mut s = Settings::default();
    s.recent.push("/trees/a.json".into());
    s.zoom = 1.5;
    s.breakpoints
        .insert("/trees/a.json".into(), vec![("n1".into(), "enter".into())]);
    s.window = Some(arbor::io::Window {
        width: 1200.0,
        height: 800.0,
        x: Some(10.0),
        y: None,
    });
    file.save(&s).unwrap();
    assert_eq!(file.load(), (s.clone(), vec![]));
    let left: Vec<_> = std::fs::read_dir(file.path().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "no temporary file left: {left:?}");
    // Kept with the user's dotfiles: a link to a regular file is written through, and
    // stays a link.
    let kept = dir.path().join("dotfiles-settings.json");
    std::fs::rename(file.path(), &kept).unwrap();
    std::os::unix::fs::symlink(&kept, file.path()).unwrap();
    s.zoom = 2.0;
    file.save(&s).unwrap();
    assert_eq!(file.load(), (s.clone(), vec![]));
    assert!(
        std::fs::symlink_metadata(file.path())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::fs::read_to_string(&kept).unwrap().contains("2.0"));
    // A link to a FIFO is not written through (nor waited on).
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::remove_file(file.path()).unwrap();
    std::os::unix::fs::symlink(&fifo, file.path()).unwrap();
    assert!(file.save(&s).is_err());
}

#[test]
fn output_that_cannot_be_written_fails_the_command() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .arg("kinds")
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot write the output"), "{stderr}");
}

/// The output of `arbor ARGS…` sent SIGINT (as Ctrl+C does) after a second and a half.
fn ctrl_c_after_a_while(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let child = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}

#[test]
fn ctrl_c_stops_a_long_behaviour_test_and_says_which_runs_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = common::repo().join("sample_trees/droid_arena.scenario.json");
    // A run too long to finish.
    let test = format!(
        r#"{{"format": "arbor.test", "version": 1, "scenario": {}, "seeds": "0..1",
            "steps": 10000000, "expect": [{{"name": "runs", "enters": "root"}}]}}"#,
        serde_json::to_string(&scenario.display().to_string()).unwrap()
    );
    let file = dir.path().join("long.test.json");
    std::fs::write(&file, test).unwrap();
    let junit = dir.path().join("report.xml");
    let out = ctrl_c_after_a_while(&[
        "test".as_ref(),
        file.as_os_str(),
        "--junit".as_ref(),
        junit.as_os_str(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{stdout}");
    assert!(
        stdout.contains("STOP  long seed 0 (stopped by Ctrl+C after step "),
        "{stdout}"
    );
    assert!(
        stdout.contains("0 passed, 0 failed, 1 stopped (Ctrl+C)"),
        "{stdout}"
    );
    // The JUnit report is written, the run as skipped.
    let report = std::fs::read_to_string(&junit).unwrap();
    assert!(
        report.contains("tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""),
        "{report}"
    );
    assert!(
        report.contains("<skipped message=\"stopped by Ctrl+C after step "),
        "{report}"
    );
    // As the JUnit schema has it (where xmllint is installed: CI installs it).
    let schema = common::repo().join("tests/fixtures/junit.xsd");
    if let Ok(check) = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(&junit)
        .output()
    {
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
}

/// `arbor coverage` of a run too long to finish (with `extra` arguments), which Ctrl+C
/// stops part-way.
fn coverage_stopped_part_way(extra: &[&str]) -> std::process::Output {
    let scenario = common::repo().join("sample_trees/droid_arena.scenario.json");
    let mut args = vec![
        "coverage".as_ref(),
        scenario.as_os_str(),
        "--seeds".as_ref(),
        "0..1".as_ref(),
        "--steps".as_ref(),
        "10000000".as_ref(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    ctrl_c_after_a_while(&args)
}

#[test]
fn ctrl_c_stops_a_long_coverage_and_prints_the_table_of_what_ran() {
    let out = coverage_stopped_part_way(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "interrupted (Ctrl+C): 0 of 1 runs finished, 1 stopped part-way (counted to the step each reached)"
        ),
        "{stderr}"
    );
    // The table counts the steps the run took: some, and fewer than asked.
    let header = stdout.lines().next().unwrap_or_default();
    let steps: u64 = header
        .strip_prefix("1 run, ")
        .and_then(|h| h.strip_suffix(" steps in all"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(steps > 0 && steps < 10_000_000, "{header}");
    let total = stdout
        .lines()
        .find(|l| l.starts_with("total: "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(!total.starts_with("total: 0 of"), "{total}");
}

#[test]
fn ctrl_c_stops_a_long_run_between_two_steps_and_its_summary_is_printed() {
    let scenario = common::repo().join("sample_trees/droid_arena.scenario.json");
    for extra in [&[][..], &["--break", "root:interrupt"][..]] {
        let mut args = vec![
            "run".as_ref(),
            scenario.as_os_str(),
            "--steps".as_ref(),
            "1000000000".as_ref(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let out = ctrl_c_after_a_while(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(130), "{extra:?}: {stdout}");
        assert!(
            stdout.contains("interrupted (Ctrl+C) after step"),
            "{extra:?}: {stdout}"
        );
        // The summary of each droid is there.
        assert!(stdout.contains("titan"), "{extra:?}: {stdout}");
    }
}

#[cfg(unix)]
#[test]
fn saving_onto_a_fifo_or_a_folder_is_refused_and_leaves_it_as_it_is() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree = load_tree(&dir.path().join("door_room.json")).unwrap();
    let fifo = dir.path().join("pipe.json");
    common::mkfifo(&fifo);
    let link = dir.path().join("to_pipe.json");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let folder = dir.path().join("folder.json");
    std::fs::create_dir(&folder).unwrap();
    for (path, says) in [
        (&fifo, "it is a FIFO (named pipe), not a regular file"),
        (&link, "it is a FIFO (named pipe), not a regular file"),
        (&folder, "it is a folder, not a regular file"),
    ] {
        // Refused at once: nothing opens the FIFO, so nothing waits for a reader.
        let e = save_tree(path, &tree).unwrap_err();
        assert!(matches!(e, LoadError::NotWritten { .. }), "{e}");
        assert!(e.to_string().contains(says), "{e}");
        assert!(e.to_string().contains("not written"), "{e}");
    }
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(folder.is_dir());
    // Nothing was left beside them.
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["door_room.json", "folder.json", "pipe.json", "to_pipe.json"]
    );
}

#[test]
fn a_coverage_file_of_runs_ctrl_c_stopped_says_it_is_partial() {
    let out = coverage_stopped_part_way(&["--json"]);
    assert_eq!(out.status.code(), Some(130));
    let text = String::from_utf8_lossy(&out.stdout);
    let coverage = arbor::check::Coverage::parse(&text, Path::new("-")).unwrap();
    assert!(coverage.partial, "{text}");
    assert!(text.contains("\"partial\": true"), "{text}");
    // Runs that end are not.
    let scenario = common::repo().join("sample_trees/droid_arena.scenario.json");
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["coverage".as_ref(), scenario.as_os_str()])
        .args(["--seeds", "0..1", "--steps", "10", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("partial"), "{text}");
}

#[test]
fn the_work_on_each_tree_of_a_behaviortree_cpp_file_is_kept_and_offered_apart() {
    // A file's main tree and another of its trees opened on its own (`main.xml#Inner`)
    // have recovery files of their own; each is offered for its tree only.
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let tree = load_tree(&dir.path().join("door_room.json")).unwrap();
    let file = dir.path().join("main.xml");
    std::fs::write(&file, "<root/>").unwrap();
    let (main, inner) = (titled(&tree, 1, "Main"), titled(&tree, 1, "Inner"));
    let other = Running::start();
    let folder = dir.path().join("recovery");
    let them = RecoveryDir::new(&folder).as_owner(other.owner());
    let main_file = them.write_tree(Some(&file), None, None, &main).unwrap();
    let inner_file = them
        .write_tree(Some(&file), Some("Inner"), None, &inner)
        .unwrap();
    assert_ne!(main_file, inner_file);
    drop(other);
    let me = RecoveryDir::new(&folder);
    let all = me.find_tree(Some(&file), Some("Inner"));
    assert!(all.unreadable.is_empty(), "{:?}", all.unreadable);
    let found = all.found.unwrap();
    assert_eq!(
        (found.tree, found.tree_id.as_deref()),
        (inner, Some("Inner"))
    );
    let found = me.find(Some(&file)).found.unwrap();
    assert_eq!((found.tree, found.tree_id), (main, None));
    assert!(me.find_tree(Some(&file), Some("Other")).found.is_none());
}
