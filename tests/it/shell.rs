//! The shell's view of laurel, through the built binary: completion scripts
//! and man pages that know every command.

use crate::common;

use std::path::Path;

use common::run;

/// The subcommands `laurel --help` lists.
fn subcommands(dir: &Path) -> Vec<String> {
    let (_, help, _) = run(dir, &["--help"]);
    let listed = help.split("Commands:").nth(1).expect("a Commands: section");
    let listed = listed.split("\n\n").next().unwrap_or_default();
    listed
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn bash_completions_mention_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let commands = subcommands(dir.path());
    assert!(commands.len() >= 15, "{commands:?}");
    assert!(commands.iter().any(|c| c == "standings"), "{commands:?}");
    let (code, script, err) = run(dir.path(), &["completions", "bash"]);
    assert_eq!((code, err.as_str()), (0, ""));
    for c in &commands {
        assert!(
            script.contains(&format!("laurel__subcmd__{c})")),
            "no {c} in the script"
        );
    }
    // Flags too: --limit is offered after `standings`.
    assert!(script.contains("--limit"));
    let (code, _, err) = run(dir.path(), &["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn man_page_is_roff_with_a_title_and_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let (code, page, _) = run(dir.path(), &["man"]);
    assert_eq!(code, 0);
    // clap_mangen first defines the \*(Aq string, then the title.
    let first_macro = page
        .lines()
        .find(|l| !l.starts_with(".ie") && !l.starts_with(".el"))
        .unwrap();
    assert!(first_macro.starts_with(".TH laurel 1 "), "{first_macro}");
    assert!(page.contains("\n.SH NAME\n"), "{page}");
    // The exit codes scripts rely on, and where the commands' pages are.
    let exit = page
        .split(".SH \"EXIT STATUS\"\n")
        .nth(1)
        .expect("EXIT STATUS");
    for code in ["0", "1", "2"] {
        assert!(exit.contains(&format!(".TP\n\\fB{code}\\fR\n")), "{exit}");
    }
    assert!(
        page.contains("\\fBlaurel man\\fR \\fICOMMAND\\fR prints"),
        "{page}"
    );
    for c in subcommands(dir.path()) {
        assert!(
            page.contains(&format!("laurel\\-{c}")),
            "no {c} in the page"
        );
    }
}

/// Every page the main page lists as laurel-COMMAND(1) is printed by
/// `laurel man COMMAND`, and `players`' own list by `laurel man players add`;
/// a command laurel does not have is refused naming those it has.
#[test]
fn man_prints_the_page_of_every_subcommand_the_main_page_lists() {
    let dir = tempfile::tempdir().unwrap();
    for c in subcommands(dir.path()) {
        let (code, page, err) = run(dir.path(), &["man", &c]);
        assert_eq!(code, 0, "{c}: {err}");
        assert!(page.contains(&format!(".TH laurel-{c} 1 ")), "{page}");
        assert!(
            page.contains(&format!("\\fBlaurel {c}\\fR")),
            "{c}'s synopsis: {page}"
        );
    }
    let (_, players, _) = run(dir.path(), &["man", "players"]);
    assert!(players.contains("laurel\\-players\\-add(1)"), "{players}");
    let (code, page, _) = run(dir.path(), &["man", "players", "add"]);
    assert_eq!(code, 0);
    assert!(page.contains(".TH laurel-players-add 1 "), "{page}");
    let (code, _, err) = run(dir.path(), &["man", "apend"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`laurel` has no command \"apend\": it has init, append"),
        "{err}"
    );
    let (code, _, err) = run(dir.path(), &["man", "players", "add", "x"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`laurel players add` has no subcommands"),
        "{err}"
    );
}
