//! `arbor test [PATH…] [--junit FILE]`: runs behaviour test files, every seed of each in
//! parallel, and reports a line per test and seed. Ctrl+C stops the runs between two
//! steps: a run stopped before its end with nothing broken is reported as stopped.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::steps::ctrl_c_pressed;
use super::{EXIT_ERRORS, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNREADABLE};
use crate::check::shard::{Partition, pair_key};
use crate::check::{PrepareError, Prepared, SeedOutcome, find_tests, junit, load_test, project_of};
use crate::model::Catalog;

/// A test file and what became of it.
enum Loaded {
    Ready(Box<Prepared>),
    /// It could not run; whether that is bad input (exit 2) rather than a failure.
    Failed {
        path: PathBuf,
        message: String,
        bad_input: bool,
    },
}

/// The test files under `paths` (`.` when none), prepared; the problems of each project
/// they run in said once on `err`.
fn prepare_all(
    paths: &[PathBuf],
    project: Option<&Path>,
    base: &Catalog,
    err: &mut dyn Write,
) -> Result<Vec<Loaded>, u8> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let files = find_tests(&paths).map_err(|e| {
        let _ = writeln!(err, "error: {e}");
        EXIT_UNREADABLE
    })?;
    if files.is_empty() {
        let _ = writeln!(
            err,
            "error: no behaviour test files (*.test.json) in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Err(EXIT_UNREADABLE);
    }
    let tests: Vec<_> = files
        .into_par_iter()
        .map(|path| {
            let test = load_test(&path);
            (path, test)
        })
        .collect();
    // Each project read once, its problems said once, whether its tests run or not.
    let mut projects = super::Projects::new(base, project);
    let tests: Vec<_> = tests
        .into_iter()
        .map(|(path, test)| {
            let test = test.map(|t| {
                let here = projects.index_of(project_of(&t, project), err, &mut (0, 0, 0));
                (t, here)
            });
            (path, test)
        })
        .collect();
    let projects = &projects.loaded;
    Ok(tests
        .into_par_iter()
        .map(|(path, test)| {
            let (test, here) = match test {
                Ok(t) => t,
                Err(e) => {
                    return Loaded::Failed {
                        path,
                        message: e.to_string(),
                        bad_input: true,
                    };
                }
            };
            match Prepared::in_project(test, &projects[here]) {
                Ok(p) => Loaded::Ready(Box::new(p)),
                Err(e) => Loaded::Failed {
                    path,
                    bad_input: !matches!(e, PrepareError::Broken(_)),
                    message: e.to_string(),
                },
            }
        })
        .collect())
}

/// `arbor merge-junit REPORT… -o OUT`: the JUnit reports of the shards of one run
/// (`arbor test --partition … --junit`) as one, as a single run writes it (the runs' times
/// as each shard took them). Exit 0, or 2 when a report cannot be read, is not one
/// `arbor test` wrote, overlaps another, or OUT would write over one of them.
pub fn merge_junit(
    reports: &[PathBuf],
    output: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut read = Vec::new();
    for path in reports {
        let suites = crate::io::read_text(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))
            .and_then(|text| junit::read(&text, path));
        match suites {
            Ok(s) => read.push((path.display().to_string(), s)),
            Err(why) => {
                let _ = writeln!(err, "error: {why}");
                return EXIT_UNREADABLE;
            }
        }
    }
    let merged = match junit::merge(read) {
        Ok(m) => m,
        Err(why) => {
            let _ = writeln!(err, "error: {why} (nothing written)");
            return EXIT_UNREADABLE;
        }
    };
    if let Err(e) = crate::io::write_output(output, reports, junit::write(&merged).as_bytes()) {
        let _ = writeln!(err, "{}", super::located(&e));
        return EXIT_UNREADABLE;
    }
    let runs: usize = merged.iter().map(|s| s.cases.len()).sum();
    let _ = writeln!(
        out,
        "{}: {runs} runs of {} tests from {} reports",
        output.display(),
        merged.len(),
        reports.len()
    );
    EXIT_OK
}

/// The shard `arbor test` runs: `--partition` (`flag`), else the one the CI variables
/// `TEST_TOTAL_SHARDS` and `TEST_SHARD_INDEX` name, else none ([`Partition::chosen`]).
pub fn shard_from_env(flag: Option<&str>) -> Result<Option<Partition>, String> {
    let var = |name| std::env::var(name).ok();
    Partition::chosen(
        flag,
        var("TEST_TOTAL_SHARDS").as_deref(),
        var("TEST_SHARD_INDEX").as_deref(),
    )
}

/// `arbor test`.
pub fn test(
    paths: &[PathBuf],
    junit_file: Option<&Path>,
    partition: Option<&Partition>,
    project: Option<&Path>,
    base: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let loaded = match prepare_all(paths, project, base, err) {
        Ok(l) => l,
        Err(code) => return code,
    };
    // A report that would write over a file the tests read, or into no regular file, is
    // refused before anything runs.
    if let Some(file) = junit_file
        && let Err(e) = crate::io::check_output(file, &[])
    {
        let _ = writeln!(err, "{}", super::located(&e));
        return EXIT_UNREADABLE;
    }
    // The seeds of each test this shard runs (all of them without --partition), and
    // whether it reports each test file that cannot run (one pair of the run each).
    let shard = shard_of(&loaded, partition);
    if let Some(p) = partition {
        let runs: usize = shard.iter().map(|s| s.len()).sum();
        let _ = writeln!(out, "shard {p}: {runs} of {} runs", pairs(&loaded));
    }
    // Every seed of every test, in parallel; reported in file and seed order.
    let jobs: Vec<(&Prepared, u64)> = loaded
        .iter()
        .zip(&shard)
        .filter_map(|(l, seeds)| match l {
            Loaded::Ready(p) => Some(seeds.iter().map(move |&s| (&**p, s))),
            Loaded::Failed { .. } => None,
        })
        .flatten()
        .collect();
    // Ctrl+C stops the runs going on between two steps; those not begun do not start.
    let outcomes: Vec<SeedOutcome> = jobs
        .par_iter()
        .map(|&(p, seed)| {
            if ctrl_c_pressed() {
                return SeedOutcome::not_begun(seed);
            }
            p.run_until(seed, &|| !ctrl_c_pressed())
        })
        .collect();
    let (mut passed, mut failed, mut unrun, mut stopped) = (0usize, 0usize, 0usize, 0usize);
    let mut suites = Vec::new();
    let mut next = outcomes.iter();
    for (l, seeds) in loaded.iter().zip(&shard) {
        if seeds.is_empty() {
            continue;
        }
        match l {
            Loaded::Failed {
                path,
                message,
                bad_input,
            } => {
                unrun += usize::from(*bad_input);
                failed += usize::from(!*bad_input);
                // Bad input is an error; a tree that does not run fails its test.
                let word = if *bad_input { "ERROR" } else { "FAIL " };
                let _ = writeln!(out, "{word} {}", path.display());
                for line in message.lines() {
                    let _ = writeln!(out, "      {line}");
                }
                let (failure, error) = if *bad_input {
                    (None, Some(message.clone()))
                } else {
                    (
                        Some(("the tree does not run".to_owned(), message.clone())),
                        None,
                    )
                };
                suites.push(junit::Suite {
                    name: path.display().to_string(),
                    file: path.display().to_string(),
                    cases: vec![junit::Case {
                        failure,
                        error,
                        ..junit::Case::passed("load".into(), 0.0)
                    }],
                });
            }
            Loaded::Ready(p) => {
                let mut cases = Vec::new();
                let mine: Vec<&SeedOutcome> = next.by_ref().take(seeds.len()).collect();
                print_seeds(p, &mine, out);
                for o in mine {
                    let case = case_of(o);
                    if o.passed() {
                        passed += 1;
                    } else if case.skipped.is_some() {
                        stopped += 1;
                    } else {
                        failed += 1;
                    }
                    cases.push(case);
                }
                suites.push(junit::Suite {
                    name: p.test.name.clone(),
                    file: p.test.path.display().to_string(),
                    cases,
                });
            }
        }
    }
    let mut summary = format!("{passed} passed, {failed} failed");
    if unrun > 0 {
        summary.push_str(&format!(", {unrun} test file(s) not run (bad input)"));
    }
    if stopped > 0 {
        summary.push_str(&format!(", {stopped} stopped (Ctrl+C)"));
    }
    let _ = writeln!(out, "{summary}");
    if let Some(file) = junit_file
        && let Err(e) = crate::io::write_output(file, &[], junit::write(&suites).as_bytes())
    {
        let _ = writeln!(err, "{}", super::located(&e));
        return EXIT_UNREADABLE;
    }
    if stopped > 0 {
        EXIT_INTERRUPTED
    } else if unrun > 0 {
        EXIT_UNREADABLE
    } else if failed > 0 {
        EXIT_ERRORS
    } else {
        EXIT_OK
    }
}

/// The pairs of a whole run: each seed of each test, and one for each test file that
/// cannot run.
fn pairs(loaded: &[Loaded]) -> usize {
    loaded
        .iter()
        .map(|l| match l {
            Loaded::Ready(p) => p.test.seeds.len(),
            Loaded::Failed { .. } => 1,
        })
        .sum()
}

/// For each test file, the seeds `partition` gives this shard (a test file that cannot
/// run: one stand-in, 0, when its pair is this shard's); every one without a partition.
fn shard_of(loaded: &[Loaded], partition: Option<&Partition>) -> Vec<Vec<u64>> {
    let len = pairs(loaded);
    let mut position = 0;
    loaded
        .iter()
        .map(|l| {
            let (path, seeds): (&Path, Vec<u64>) = match l {
                Loaded::Ready(p) => (&p.test.path, p.test.seeds.clone()),
                Loaded::Failed { path, .. } => (path, vec![0]),
            };
            seeds
                .into_iter()
                .filter(|&seed| {
                    let at = position;
                    position += 1;
                    partition.is_none_or(|p| p.keeps(at, len, &pair_key(path, seed)))
                })
                .collect()
        })
        .collect()
}

/// Prints a line for each seed of test `p` and what broke; seeds that broke the same
/// expectations at the same steps, saying the same, are said once ("same on seeds 1–8"),
/// with the command that opens the first of them.
fn print_seeds(p: &Prepared, outcomes: &[&SeedOutcome], out: &mut dyn Write) {
    let name = &p.test.name;
    let mut said = vec![false; outcomes.len()];
    for (i, o) in outcomes.iter().enumerate() {
        if said[i] {
            continue;
        }
        said[i] = true;
        if o.passed() {
            let _ = writeln!(out, "ok    {name} seed {}", o.seed);
            continue;
        }
        if let Some(why) = stopped_why(o) {
            let _ = writeln!(out, "STOP  {name} seed {} ({why})", o.seed);
            continue;
        }
        if let Some(e) = &o.error {
            let _ = writeln!(out, "FAIL  {name} seed {}", o.seed);
            let _ = writeln!(out, "      {e}");
            continue;
        }
        let mut seeds = vec![o.seed];
        for (j, other) in outcomes.iter().enumerate().skip(i + 1) {
            if !said[j] && other.error.is_none() && same_failures(o, other) {
                said[j] = true;
                seeds.push(other.seed);
            }
        }
        let (title, within) = match seeds.len() {
            1 => (format!("seed {}", o.seed), format!("seed {}", o.seed)),
            _ => {
                let list = seed_list(&seeds);
                (format!("seeds {list}"), format!("same on seeds {list}"))
            }
        };
        let _ = writeln!(out, "FAIL  {name} {title}");
        for f in &o.failures {
            let _ = writeln!(
                out,
                "      expectation '{}' broke at step {} ({within}): {}",
                f.expectation, f.step, f.message
            );
            let _ = writeln!(out, "      see it: {}", f.open);
        }
    }
}

/// Whether two seeds broke the same expectations at the same steps, saying the same.
fn same_failures(a: &SeedOutcome, b: &SeedOutcome) -> bool {
    a.failures.len() == b.failures.len()
        && a.failures.iter().zip(&b.failures).all(|(x, y)| {
            (&x.expectation, x.step, &x.message) == (&y.expectation, y.step, &y.message)
        })
}

/// Seeds in words, runs of consecutive ones as ranges: `1–8`, `0, 3–5`.
fn seed_list(seeds: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < seeds.len() {
        let mut j = i;
        while j + 1 < seeds.len() && seeds[j + 1] == seeds[j] + 1 {
            j += 1;
        }
        parts.push(match j - i {
            0 => seeds[i].to_string(),
            1 => format!("{}, {}", seeds[i], seeds[j]),
            _ => format!("{}–{}", seeds[i], seeds[j]),
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// Why a run was stopped before its end by Ctrl+C, when it was (and broke nothing).
fn stopped_why(o: &SeedOutcome) -> Option<String> {
    match (o.stopped, o.failures.is_empty(), &o.error) {
        (Some(0), true, None) => Some("not run: stopped by Ctrl+C".to_owned()),
        (Some(step), true, None) => Some(format!("stopped by Ctrl+C after step {step}")),
        _ => None,
    }
}

/// One seed's JUnit case.
fn case_of(o: &SeedOutcome) -> junit::Case {
    let name = format!("seed {}", o.seed);
    if o.passed() {
        return junit::Case::passed(name, o.seconds);
    }
    if let Some(why) = stopped_why(o) {
        return junit::Case {
            skipped: Some(why),
            ..junit::Case::passed(name, o.seconds)
        };
    }
    if let Some(e) = &o.error {
        return junit::Case {
            error: Some(e.clone()),
            ..junit::Case::passed(name, o.seconds)
        };
    }
    let mut text = String::new();
    for f in &o.failures {
        let line = format!(
            "expectation '{}' broke at step {} (seed {}): {}",
            f.expectation, f.step, o.seed, f.message
        );
        text.push_str(&format!("{line}\nsee it: {}\n", f.open));
    }
    let first = &o.failures[0];
    let message = if o.failures.len() == 1 {
        format!("'{}' broke at step {}", first.expectation, first.step)
    } else {
        format!(
            "'{}' broke at step {} (and {} more)",
            first.expectation,
            first.step,
            o.failures.len() - 1
        )
    };
    junit::Case {
        failure: Some((message, text)),
        ..junit::Case::passed(name, o.seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::seed_list;

    #[test]
    fn seeds_are_said_in_runs() {
        assert_eq!(seed_list(&[4]), "4");
        assert_eq!(seed_list(&[1, 2, 3, 4, 5, 6, 7, 8]), "1–8");
        assert_eq!(seed_list(&[0, 3, 4, 5, 9]), "0, 3–5, 9");
        assert_eq!(seed_list(&[3, 4]), "3, 4");
    }
}
