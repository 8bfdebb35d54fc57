//! Renaming a key the project declares in every tree of a project of 200 trees and 2,000
//! keys (tests/common/projects.rs): finding and rewriting every use (`plan`), and the whole
//! rename as the editor does it and its undo (`rename_and_back`: the plan, the files
//! written, then written back). Run with `cargo bench --bench rename`; `cargo test
//! --all-targets` runs it once.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

#[path = "../tests/common/projects.rs"]
mod projects;

use std::hint::black_box;
use std::time::Duration;

use arbor::io::{ProjectCatalog, apply_file_changes, plan_project_rename};
use arbor::model::Catalog;
use criterion::Criterion;

fn rename(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    projects::write_project(d, 200, 2000);
    let project = d.join("arbor.project.json");
    let open = d.join("trees/g0/t0.json");
    let catalog = ProjectCatalog::for_tree(Some(&open), None, &Catalog::builtin()).catalog;
    let mut group = c.benchmark_group("rename");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("plan/200_trees_2000_keys", |b| {
        b.iter(|| {
            let plan = plan_project_rename(&project, &catalog, Some(&open), "k0", "hero");
            black_box(plan.unwrap().len())
        })
    });
    group.bench_function("rename_and_back/200_trees_2000_keys", |b| {
        b.iter(|| {
            let plan = plan_project_rename(&project, &catalog, Some(&open), "k0", "hero").unwrap();
            apply_file_changes(&plan, true).unwrap();
            apply_file_changes(&plan, false).unwrap();
            black_box(plan.len())
        })
    });
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    rename(&mut c);
    c.final_summary();
}
