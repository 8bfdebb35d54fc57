//! The editor and the tree's file on disk: a change made by another program is reloaded
//! (clean) or said at once (unsaved changes), Save asks before writing over it, a read-only
//! file is not written over, recovery says when its file changed since, and the settings
//! file's bad values never stop the start. Driven through the keys and buttons a person uses.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbor::editor::EditorApp;
use arbor::io::{RecoveryDir, SettingsFile, load_tree, save_tree};
use arbor::model::{Catalog, Edit, NodeId, Tree};
use eframe::egui::{self, Key, Modifiers};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use common::harness;

/// A copy of door_room.json in a new folder.
fn door_room() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    common::copy_samples(dir.path(), &["door_room.json"]);
    let file = dir.path().join("door_room.json");
    (dir, file)
}

/// `tree` with its `n`th node titled `title`.
fn titled(tree: &Tree, n: usize, title: &str) -> Tree {
    let mut t = tree.clone();
    let id = t.nodes()[n].id.clone();
    t.apply(
        Edit::SetTitle {
            id,
            title: title.into(),
        },
        &Catalog::builtin(),
    )
    .unwrap();
    t
}

/// Another program writes `tree` to `file` (as `git pull` or `arbor fmt` would).
fn changed_elsewhere(file: &Path, tree: &Tree) {
    save_tree(file, tree).unwrap();
}

/// Runs frames, waiting for file events, until `f` holds (at most 10 s).
fn until(h: &mut Harness<'static, EditorApp>, what: &str, f: impl Fn(&EditorApp) -> bool) {
    for _ in 0..200 {
        h.run_steps(1);
        if f(h.state()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "waited 10 s for {what}; last message: {}",
        h.state().last_message()
    );
}

/// Whether the file chooser's path field holds `text`.
fn path_field_holds(h: &Harness<'static, EditorApp>, text: &str) -> bool {
    h.get_all_by_role(Role::TextInput)
        .any(|n| n.value().as_deref() == Some(text))
}

fn ctrl_s(h: &mut Harness<'static, EditorApp>) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    h.run_steps(3);
}

fn click(h: &mut Harness<'static, EditorApp>, button: &str) {
    h.get_by_role_and_label(Role::Button, button).click();
    h.run_steps(3);
}

#[test]
fn a_clean_tree_changed_on_disk_is_reloaded_and_says_so() {
    let (_dir, file) = door_room();
    let mut h = harness(EditorApp::open(&file).unwrap());
    let theirs = titled(h.state().tree(), 1, "Pulled");
    changed_elsewhere(&file, &theirs);
    until(&mut h, "the reload", |app| *app.tree() == theirs);
    assert!(!h.state().is_dirty());
    assert!(
        h.state()
            .last_message()
            .contains("changed on disk: reloaded"),
        "{}",
        h.state().last_message()
    );
}

#[test]
fn save_after_a_change_on_disk_asks_and_each_answer_does_what_it_says() {
    let (_dir, file) = door_room();
    let mut h = harness(EditorApp::open(&file).unwrap());
    let on_disk = h.state().tree().clone();
    let mine = titled(&on_disk, 1, "Mine");
    retitle(&mut h, &on_disk.nodes()[1].id, "Mine");

    // Changed on disk while the tree has unsaved changes: said at once, the work kept.
    let theirs = titled(&on_disk, 2, "Theirs");
    changed_elsewhere(&file, &theirs);
    until(&mut h, "the change to be said", |app| {
        app.last_message().contains("changed on disk")
    });
    assert_eq!(*h.state().tree(), mine);
    assert!(h.state().is_dirty());

    // Save asks; Cancel leaves both as they are.
    ctrl_s(&mut h);
    h.get_by_label_contains("Another program changed");
    click(&mut h, "Cancel");
    assert_eq!(load_tree(&file).unwrap(), theirs);
    assert!(h.state().is_dirty());

    // Overwrite: the tree as edited is saved.
    ctrl_s(&mut h);
    click(&mut h, "Overwrite");
    assert_eq!(load_tree(&file).unwrap(), mine);
    assert!(!h.state().is_dirty());

    // Changed again, edited again: Reload from Disk takes the file's tree.
    let again = titled(&mine, 3, "Again");
    changed_elsewhere(&file, &again);
    until(&mut h, "the reload", |app| *app.tree() == again);
    retitle(&mut h, &on_disk.nodes()[1].id, "Mine 2");
    let third = titled(&again, 4, "Third");
    changed_elsewhere(&file, &third);
    until(&mut h, "the change to be said", |app| {
        app.last_message().contains("changed on disk")
    });
    ctrl_s(&mut h);
    click(&mut h, "Reload from Disk");
    assert_eq!(*h.state().tree(), third);
    assert!(!h.state().is_dirty());

    // Save As…: the file chooser opens; the file on disk stays.
    retitle(&mut h, &on_disk.nodes()[1].id, "Mine 3");
    changed_elsewhere(&file, &on_disk);
    until(&mut h, "the change to be said", |app| {
        app.last_message().contains("changed on disk")
    });
    ctrl_s(&mut h);
    click(&mut h, "Save As…");
    h.get_by_label("Save the tree as");
    assert!(path_field_holds(&h, "door_room-2.json"));
    assert_eq!(load_tree(&file).unwrap(), on_disk);
}

#[test]
fn a_read_only_tree_is_not_written_over_and_save_as_is_offered() {
    let (_dir, file) = door_room();
    let before = std::fs::read_to_string(&file).unwrap();
    let mut p = std::fs::metadata(&file).unwrap().permissions();
    p.set_readonly(true);
    std::fs::set_permissions(&file, p).unwrap();
    let mut h = harness(EditorApp::open(&file).unwrap());
    let id = h.state().tree().nodes()[1].id.clone();
    retitle(&mut h, &id, "Mine");
    ctrl_s(&mut h);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert!(h.state().is_dirty());
    // The status line says why, and Save As offers a new file beside it.
    assert!(
        h.state()
            .status()
            .contains("door_room.json: not written: the file is read-only"),
        "{}",
        h.state().status()
    );
    h.get_by_label("Save the tree as");
    assert!(path_field_holds(&h, "door_room-2.json"));
}

#[test]
fn opening_a_tree_removes_what_a_save_stopped_by_a_kill_left_beside_it() {
    let (dir, file) = door_room();
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    let left = dir.path().join(format!(".door_room.json.{pid}.tmp"));
    std::fs::write(&left, "half a tree").unwrap();
    let _h = harness(EditorApp::open(&file).unwrap());
    assert!(!left.exists());
}

#[test]
fn recovered_work_of_a_tree_changed_on_disk_since_says_so_and_shows_what_differs() {
    let (dir, file) = door_room();
    let (tree, stamp) = arbor::io::load_tree_stamped(&file).unwrap();
    let recovery = RecoveryDir::new(dir.path().join("recovery"));
    let work = titled(&tree, 1, "Mine");
    recovery.write(Some(&file), Some(stamp), &work).unwrap();
    changed_elsewhere(&file, &titled(&tree, 2, "Theirs"));

    let app = EditorApp::open(&file).unwrap().with_recovery(recovery);
    let mut h = harness(app);
    h.get_by_label_contains("Recovered work");
    h.get_by_label_contains("changed on disk since this work began");
    h.get_by_label_contains("\"Mine\"");
    h.get_by_label_contains("\"Theirs\"");
    click(&mut h, "Restore");
    assert_eq!(*h.state().tree(), work);
}

/// Makes the recovery record `file` one of an older editor: no stamp of the tree's file,
/// no process, written `ago` seconds ago.
fn as_older_editors(file: &Path, ago: u64) {
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let fields = record.as_object_mut().unwrap();
    fields.remove("base");
    fields.remove("owner");
    let written = fields["written"].as_u64().unwrap();
    fields.insert("written".into(), (written - ago).into());
    std::fs::write(file, serde_json::to_string(&record).unwrap()).unwrap();
}

#[test]
fn recovered_work_of_an_older_editor_whose_file_was_modified_since_says_so() {
    let (dir, file) = door_room();
    let tree = load_tree(&file).unwrap();
    let recovery = RecoveryDir::new(dir.path().join("recovery"));
    let work = titled(&tree, 1, "Mine");
    let record = recovery.write(Some(&file), None, &work).unwrap();
    as_older_editors(&record, 120);
    changed_elsewhere(&file, &titled(&tree, 2, "Theirs"));

    let mut h = harness(
        EditorApp::open(&file)
            .unwrap()
            .with_recovery(recovery.clone()),
    );
    h.get_by_label_contains("Recovered work");
    h.get_by_label_contains("was modified on disk after this work was written");
    h.get_by_label_contains("\"Theirs\"");
    click(&mut h, "Discard");

    // Not modified since: offered without a warning.
    let record = recovery.write(Some(&file), None, &work).unwrap();
    as_older_editors(&record, 0);
    let modified = std::time::SystemTime::now() - Duration::from_secs(600);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let h = harness(EditorApp::open(&file).unwrap().with_recovery(recovery));
    h.get_by_label_contains("Recovered work");
    assert!(h.query_by_label_contains("on disk").is_none());
}

#[test]
fn an_unreadable_recovery_file_is_reported_and_kept_aside() {
    let (dir, file) = door_room();
    let folder = dir.path().join("recovery");
    std::fs::create_dir_all(&folder).unwrap();
    // Left, cut short, by an editor that no longer runs.
    let cut = RecoveryDir::new(&folder)
        .as_owner(arbor::io::Owner { pid: 1, started: 1 })
        .file_for(Some(&file));
    std::fs::write(&cut, "{\"format\": \"arbor.rec").unwrap();
    let app = EditorApp::open(&file)
        .unwrap()
        .with_recovery(RecoveryDir::new(&folder));
    let h = harness(app);
    assert!(
        h.state().last_message().contains("does not read"),
        "{}",
        h.state().last_message()
    );
    assert!(PathBuf::from(format!("{}.unreadable", cut.display())).exists());
}

#[test]
fn a_bad_zoom_in_the_settings_opens_at_100_percent_and_says_why() {
    let (dir, file) = door_room();
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"format": "arbor.settings", "version": 1, "zoom": 0}"#,
    )
    .unwrap();
    let app = EditorApp::open(&file)
        .unwrap()
        .with_settings(SettingsFile::new(&settings));
    let h = harness(app);
    assert_eq!(h.ctx.zoom_factor(), 1.0);
    assert!(
        h.state().last_message().contains("zoom"),
        "{}",
        h.state().last_message()
    );
}

#[test]
fn a_window_place_off_every_screen_in_the_settings_opens_where_the_system_puts_it() {
    let (dir, file) = door_room();
    let settings = dir.path().join("settings.json");
    let with_place = |x: f64, y: f64| {
        std::fs::write(
            &settings,
            format!(
                r#"{{"format": "arbor.settings", "version": 1, "window": {{"width": 900, "height": 700, "x": {x}, "y": {y}}}}}"#
            ),
        )
        .unwrap();
        harness(
            EditorApp::open(&file)
                .unwrap()
                .with_settings(SettingsFile::new(&settings)),
        )
    };
    for (x, y) in [(99_999.0, 40.0), (40.0, -40_000.0)] {
        let h = with_place(x, y);
        let kept = h.state().kept_window().unwrap();
        assert_eq!(
            (kept.width, kept.height),
            (900.0, 700.0),
            "the size is kept"
        );
        assert_eq!((kept.x, kept.y), (None, None), "({x}, {y})");
        assert!(
            h.state().last_message().contains("off every screen"),
            "{}",
            h.state().last_message()
        );
    }
    // A place on a screen (a second one, left of the first) is kept.
    let h = with_place(-1_900.0, 10.0);
    let kept = h.state().kept_window().unwrap();
    assert_eq!((kept.x, kept.y), (Some(-1_900.0), Some(10.0)));
}

#[test]
fn the_zoom_and_recent_files_are_kept_in_the_settings_file_between_runs() {
    let (dir, file) = door_room();
    let settings = SettingsFile::new(dir.path().join("settings.json"));
    let mut h = harness(
        EditorApp::open(&file)
            .unwrap()
            .with_settings(settings.clone()),
    );
    h.ctx.set_zoom_factor(1.25);
    h.run_steps(90);
    let (kept, problems) = settings.load();
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(kept.zoom, 1.25);
    assert!(arbor::io::same_file(&kept.recent[0], &file));
    drop(h);

    let h = harness(EditorApp::sample().with_settings(settings));
    assert_eq!(h.ctx.zoom_factor(), 1.25);
    assert!(arbor::io::same_file(&h.state().recent()[0], &file));
}

#[test]
fn unsaved_work_is_written_aside_at_once_when_the_window_loses_the_focus() {
    let (dir, file) = door_room();
    let recovery = RecoveryDir::new(dir.path().join("recovery"));
    let mut h = harness(EditorApp::open(&file).unwrap().with_recovery(recovery));
    let id = h.state().tree().nodes()[1].id.clone();
    retitle(&mut h, &id, "Mine");
    h.run_steps(1);
    assert!(
        h.state().recovery_file().is_none(),
        "not yet: a few seconds after"
    );
    // Another window is raised over it: it may get no more frames.
    h.input_mut().focused = false;
    h.event(egui::Event::WindowFocused(false));
    h.run_steps(2);
    let written = h
        .state()
        .recovery_file()
        .expect("written at once")
        .to_owned();
    assert_eq!(RecoveryDir::read(&written).unwrap().tree, *h.state().tree());
}

#[test]
fn older_recovered_work_is_offered_after_the_newest_is_discarded() {
    let (dir, file) = door_room();
    let tree = load_tree(&file).unwrap();
    let folder = dir.path().join("recovery");
    let gone = |pid| RecoveryDir::new(&folder).as_owner(arbor::io::Owner { pid, started: 1 });
    let older = titled(&tree, 1, "Older");
    gone(1).write(Some(&file), None, &older).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    gone(2)
        .write(Some(&file), None, &titled(&tree, 1, "Newer"))
        .unwrap();
    let mut h = harness(
        EditorApp::open(&file)
            .unwrap()
            .with_recovery(RecoveryDir::new(&folder)),
    );
    h.get_by_label_contains("newest of 2 pieces of unsaved work");
    click(&mut h, "Discard");
    h.get_by_label_contains("Recovered work");
    click(&mut h, "Restore");
    assert_eq!(*h.state().tree(), older);
}

/// Retitles node `id` as a person does: selects it and types in the inspector's title
/// field (the whole title replaced), then leaves the field.
fn retitle(h: &mut Harness<'_, EditorApp>, id: &NodeId, title: &str) {
    h.state_mut().focus(id);
    h.run_steps(2);
    h.get_by_label("title").click();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.get_by_label("title").type_text(title);
    h.run_steps(2);
    h.key_press(Key::Escape);
    h.run_steps(2);
    assert_eq!(h.state().tree().node(id).unwrap().title, title);
}
