//! The `arbor` binary: parses arguments and runs a command.

use std::process::ExitCode;

use clap::Parser;

use std::io::Write;
use std::path::Path;

use arbor::cli::{self, Cli, Command};
use arbor::io::{ProjectCatalog, find_project};
use arbor::model::Catalog;

/// Standard output that remembers its first write error, so that output lost (a full disk,
/// a closed pipe) makes the command fail instead of passing in silence.
struct Checked<W: Write> {
    inner: W,
    failed: Option<std::io::Error>,
}

impl<W: Write> Write for Checked<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| {
            self.failed
                .get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().inspect_err(|e| {
            self.failed
                .get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
        })
    }
}

fn main() -> ExitCode {
    let args = Cli::parse();
    // Every file a command reads is one of its inputs, which nothing it writes replaces.
    if !matches!(args.command, Some(Command::Edit { .. }) | None) {
        arbor::io::remember_reads();
    }
    let catalog = Catalog::builtin();
    let project = args.project.as_deref();
    // Nothing read from a file reaches the terminal raw: every control character in what
    // is printed is written out.
    let mut out = Checked {
        inner: cli::Escaped::new(std::io::stdout().lock()),
        failed: None,
    };
    // Not held locked: `coverage` shows its progress from the threads that run it.
    let mut err = cli::Escaped::new(std::io::stderr());
    let code = command(args.command, project, &catalog, &mut out, &mut err);
    let _ = out.flush();
    if let Some(e) = out.failed {
        let _ = writeln!(err, "error: cannot write the output: {e}");
        return ExitCode::from(cli::EXIT_UNREADABLE);
    }
    ExitCode::from(code)
}

/// Runs a command; its exit code.
fn command(
    command: Option<Command>,
    project: Option<&Path>,
    catalog: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    match command {
        Some(Command::Validate {
            files,
            deny_warnings,
        }) => cli::validate(&files, project, deny_warnings, catalog, out, err),
        Some(Command::MergeJunit { reports, output }) => {
            cli::merge_junit(&reports, &output, out, err)
        }
        Some(Command::RenameKind { from, to, dry_run }) => {
            cli::rename_kind(&from, &to, dry_run, project, catalog, out, err)
        }
        Some(Command::Fmt {
            check,
            diff,
            declare_keys,
            files,
        }) => {
            let how = cli::Formatting {
                check,
                diff,
                declare_keys,
            };
            cli::fmt(&files, &how, project, catalog, out, err)
        }
        Some(Command::Convert { input, output }) => cli::convert(&input, &output, out, err),
        #[cfg(feature = "groot2")]
        Some(Command::Attach {
            address,
            record,
            seconds,
            hz,
            timeout,
        }) => {
            // Ctrl+C ends the recording; what came is kept.
            let _ = ctrlc::set_handler(cli::interrupt);
            let args = cli::AttachArgs {
                address: &address,
                record: &record,
                seconds,
                hz,
                within: std::time::Duration::from_millis(timeout.max(1)),
            };
            cli::attach(&args, out, err)
        }
        Some(Command::Import { input, output }) => {
            cli::transfer(cli::Direction::Import, &input, output.as_deref(), out, err)
        }
        Some(Command::Export { input, output }) => {
            cli::transfer(cli::Direction::Export, &input, output.as_deref(), out, err)
        }
        Some(Command::Kinds) => {
            let here = ProjectCatalog::load(
                project
                    .map(Path::to_owned)
                    .or_else(|| find_project(Path::new(".")))
                    .as_deref(),
                catalog,
            );
            for p in &here.problems {
                let _ = writeln!(err, "{p}");
            }
            cli::kinds(&here.catalog, out)
        }
        Some(Command::Run {
            file,
            steps,
            dt,
            seed,
            triggers,
            trace,
            scenario,
            show,
            show_every,
            breaks,
        }) => {
            // Ctrl+C stops the run between two steps, and its summary is printed.
            let _ = ctrlc::set_handler(cli::interrupt);
            let args = cli::RunArgs {
                file: &file,
                steps,
                dt,
                seed,
                triggers: &triggers,
                trace: trace.as_deref(),
                scenario: scenario.as_deref(),
                show,
                show_every,
                breaks: &breaks,
                project,
            };
            cli::run(&args, catalog, out, err)
        }
        Some(Command::Test {
            paths,
            junit,
            partition,
        }) => {
            let shard = match cli::shard_from_env(partition.as_deref()) {
                Ok(shard) => shard,
                Err(why) => {
                    let _ = writeln!(err, "error: {why}");
                    return cli::EXIT_UNREADABLE;
                }
            };
            // Ctrl+C stops the runs between two steps, and the results so far are printed.
            let _ = ctrlc::set_handler(cli::interrupt);
            cli::test(
                &paths,
                junit.as_deref(),
                shard.as_ref(),
                project,
                catalog,
                out,
                err,
            )
        }
        Some(Command::Coverage {
            merge: Some(cli::CoverageMerge::Merge { files, report }),
            ..
        }) => cli::coverage_merge(&files, &report, out, err),
        Some(Command::Coverage {
            merge: None,
            paths,
            seeds,
            steps,
            dt,
            report,
            partition,
        }) => {
            let shard = match partition.as_deref().map(cli::Partition::parse).transpose() {
                Ok(shard) => shard,
                Err(why) => {
                    let _ = writeln!(err, "error: {why}");
                    return cli::EXIT_UNREADABLE;
                }
            };
            // Ctrl+C stops the runs between two steps, and the table of what ran is printed.
            let _ = ctrlc::set_handler(cli::interrupt);
            let args = cli::CoverageArgs {
                paths: &paths,
                seeds: seeds.as_deref(),
                steps,
                dt,
                json: report.json,
                min: report.min,
                trees: &report.trees,
                partition: shard.as_ref(),
                project,
            };
            cli::coverage(&args, catalog, out, err)
        }
        Some(Command::Edit {
            file,
            run,
            trace,
            listen,
            game,
            #[cfg(feature = "groot2")]
            attach,
            #[cfg(feature = "groot2")]
            hz,
            start,
        }) => {
            let from = match start.run_from() {
                Ok(f) => f,
                Err(e) => {
                    let _ = writeln!(err, "error: {e}");
                    return cli::EXIT_UNREADABLE;
                }
            };
            if trace.is_some() && !from.only_where() {
                let _ = writeln!(
                    err,
                    "error: --scenario, --solo, --every-agent, --seed, --dt and --trigger start a run; a replayed --trace is the run it recorded (--at, --watch and --select say where to look in it)"
                );
                return cli::EXIT_UNREADABLE;
            }
            #[cfg(not(feature = "groot2"))]
            let (attach, hz): (Option<String>, Option<f64>) = (None, None);
            let live = Live {
                listen: listen.as_deref(),
                game: game.as_deref(),
                attach: attach.as_deref(),
                hz,
            };
            editor(
                file.as_deref(),
                run,
                trace.as_deref(),
                &live,
                project,
                &from,
                err,
            )
        }
        None if cfg!(feature = "gui") => {
            let live = Live::default();
            editor(None, false, None, &live, project, &Start::default(), err)
        }
        None => {
            use clap::CommandFactory;
            let _ = Cli::command().print_help();
            cli::EXIT_OK
        }
    }
}

use arbor::debug::RunFrom as Start;

/// How `arbor edit` takes games live: `--listen`, `--game` and `--attach`.
#[derive(Default)]
#[cfg_attr(not(feature = "gui"), allow(dead_code))]
struct Live<'a> {
    listen: Option<&'a str>,
    game: Option<&'a str>,
    attach: Option<&'a str>,
    hz: Option<f64>,
}

#[cfg(feature = "gui")]
fn editor(
    file: Option<&std::path::Path>,
    run: bool,
    trace: Option<&std::path::Path>,
    live: &Live<'_>,
    project: Option<&std::path::Path>,
    from: &Start,
    err: &mut dyn std::io::Write,
) -> u8 {
    let live = arbor::editor::LiveArgs {
        listen: live.listen,
        game: live.game,
        attach: live.attach,
        hz: live.hz,
    };
    match arbor::editor::run(file, run, trace, &live, project, from) {
        Ok(()) => cli::EXIT_OK,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            cli::EXIT_UNREADABLE
        }
    }
}

#[cfg(not(feature = "gui"))]
fn editor(
    _file: Option<&std::path::Path>,
    _run: bool,
    _trace: Option<&std::path::Path>,
    _live: &Live<'_>,
    _project: Option<&std::path::Path>,
    _from: &Start,
    err: &mut dyn std::io::Write,
) -> u8 {
    let _ = writeln!(
        err,
        "error: this build of arbor has no editor (it was built without the `gui` feature)"
    );
    cli::EXIT_UNREADABLE
}
