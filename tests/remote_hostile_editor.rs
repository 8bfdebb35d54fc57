//! A hostile editor: a peer that says the welcome, then a million junk commands (steps,
//! pauses, streams, triggers and breakpoints for agents the game does not have, steps of
//! an agent it does not hold). The game neither grows nor stops: its agent steps every
//! frame and its memory stays within a few megabytes. Alone in its own test binary, so
//! the process's memory is this test's.
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
    let hello = Hello::new(
        "victim",
        0.1,
        0,
        &[("a".into(), tree.clone())],
        std::slice::from_ref(&tree),
    );
    let link = GameLink::connect_to(
        &hello,
        EditorAddress {
            addr,
            token: "t".into(),
        },
    );
    let flooder = std::thread::spawn(move || {
        let (stream, _) = fake.accept().unwrap();
        let mut input = BufReader::new(stream.try_clone().unwrap());
        let mut line = String::new();
        input.read_line(&mut line).unwrap();
        let mut out = std::io::BufWriter::new(stream);
        out.write_all(b"{\"welcome\":{}}\n").unwrap();
        for k in 0..1_000_000u32 {
            let junk = match k % 7 {
                0 => format!("{{\"step\":\"ghost-{k}\"}}\n"),
                1 => "{\"step\":\"a\"}\n".to_owned(),
                2 => format!("{{\"stream\":[\"ghost-{k}\"]}}\n"),
                3 => format!("{{\"pause\":\"ghost-{k}\"}}\n"),
                4 => format!(
                    "{{\"trigger\":{{\"agent\":\"ghost-{k}\",\"id\":\"alarm\",\"payload\":null}}}}\n"
                ),
                5 => format!(
                    "{{\"breakpoints\":[{{\"agent\":\"ghost-{k}\",\"node\":\"n{k}\",\"on\":\"enter\"}}]}}\n"
                ),
                _ => format!("{{\"continue\":\"ghost-{k}\"}}\n"),
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
    while !flooder.is_finished() {
        assert!(link.may_step("a"), "the game's own agent is never held");
        agent.step(0.1, &mut (), Some(&mut link.watch("a")));
        frames += 1;
        assert!(start.elapsed() < Duration::from_secs(120), "the flood ends");
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = flooder.join().unwrap();
    assert_eq!(sent, 1_000_000, "every junk command was taken");
    assert_eq!(agent.step_number(), frames);
    assert!(link.paused().is_empty());
    assert!(
        link.take_triggers().is_empty(),
        "no trigger for an agent it has not"
    );
    let grown = resident().saturating_sub(before);
    assert!(grown < 16 << 20, "the game grew by {} MB", grown >> 20);
}
