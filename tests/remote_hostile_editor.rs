//! A hostile editor: a peer that says the welcome, then a million junk commands to a game
//! of 10,000 agents (steps, pauses and streams for agents the game does not have, steps
//! of an agent it does not hold, triggers, breakpoints and go-ons for
//! every agent). The game neither grows nor stops: its agent steps every frame and its
//! memory stays within a few megabytes. Alone in its own test binary, so the process's
//! memory is this test's.
#![cfg(all(feature = "remote", target_os = "linux"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::{Duration, Instant};

use arbor::model::{Catalog, NoAssets};
use arbor::remote::{EditorAddress, GameLink, Hello};
use arbor::runtime::{Behaviours, Instance, Program};

/// The process's resident memory, in bytes.
fn resident() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn a_million_junk_commands_neither_grow_the_game_nor_hold_its_agent() {
    let tree = common::repo().join("sample_trees/mock_sketch.json");
    let program = {
        let t = arbor::io::load_tree(&tree).unwrap();
        Arc::new(
            Program::compile(
                &t,
                &Catalog::builtin(),
                &NoAssets,
                &Behaviours::<()>::with_builtins(),
            )
            .unwrap(),
        )
    };
    let fake = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = fake.local_addr().unwrap();
    // A game of 10,000 agents, so that what the peer asks of every agent costs the most.
    let agents: Vec<(String, std::path::PathBuf)> = std::iter::once("a".to_owned())
        .chain((1..10_000).map(|k| format!("agent-{k}")))
        .map(|n| (n, tree.clone()))
        .collect();
    let hello = Hello::new("victim", 0.1, 0, &agents, std::slice::from_ref(&tree));
    let link = GameLink::connect_to(
        &hello,
        EditorAddress {
            addr,
            token: "t".into(),
        },
    );
    let payload = "p".repeat(200);
    let flooder = std::thread::spawn(move || {
        let (stream, _) = fake.accept().unwrap();
        let mut input = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        input.read_line(&mut line).unwrap();
        // What the game sends is read (and let go), as an editor does.
        std::thread::spawn(move || std::io::copy(&mut input, &mut std::io::sink()));
        let mut out = std::io::BufWriter::new(stream);
        out.write_all(b"{\"welcome\":{}}\n").unwrap();
        for k in 0..1_000_000u32 {
            let junk = match k % 7 {
                0 => format!("{{\"step\":\"ghost-{k}\"}}\n"),
                1 => "{\"step\":\"a\"}\n".to_owned(),
                2 => format!(
                    "{{\"stream\":[\"ghost-{k}\",\"agent-{}\"]}}\n",
                    k % 9_999 + 1
                ),
                3 => format!("{{\"pause\":\"ghost-{k}\"}}\n"),
                4 => format!(
                    "{{\"trigger\":{{\"agent\":\"a\",\"id\":\"alarm\",\"payload\":\"{payload}\"}}}}\n"
                ),
                5 => {
                    format!("{{\"breakpoints\":[{{\"node\":\"nowhere-{k}\",\"on\":\"enter\"}}]}}\n")
                }
                _ => "{\"continue\":null}\n".to_owned(),
            };
            if out.write_all(junk.as_bytes()).is_err() {
                return k;
            }
        }
        let _ = out.flush();
        // Held open until the game has read it all.
        std::thread::sleep(Duration::from_secs(2));
        1_000_000
    });
    let start = Instant::now();
    while !link.connected() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the game connects"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let before = resident();
    let mut agent = Instance::new(program, 0);
    let mut frames = 0u64;
    let mut triggers = 0;
    while !flooder.is_finished() {
        assert!(link.may_step("a"), "the game's own agent is never held");
        agent.step(0.1, &mut (), Some(&mut link.watch("a")));
        // The triggers the editor sent, taken each frame as a game does: a bounded queue.
        let taken = link.take_triggers().len();
        assert!(taken <= arbor::remote::MAX_TRIGGERS);
        triggers += taken;
        frames += 1;
        assert!(start.elapsed() < Duration::from_secs(120), "the flood ends");
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = flooder.join().unwrap();
    assert_eq!(sent, 1_000_000, "every junk command was taken");
    assert_eq!(agent.step_number(), frames);
    assert!(link.paused().is_empty());
    assert!(triggers > 0, "the triggers for its own agent came");
    let grown = resident().saturating_sub(before);
    assert!(grown < 16 << 20, "the game grew by {} MB", grown >> 20);
}
