//! `guid completions` and `guid man`: shell completion scripts and man
//! pages, generated from the command line's own definition so that they
//! cannot fall behind it.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, roman};

use crate::cli::Cli;
use crate::output::{self, Fail, Status};

/// Writes the completion script for `shell`.
pub fn completions(shell: Shell, out: &mut impl Write) -> Result<Status, Fail> {
    // clap_complete panics when its writer fails: it writes to memory, and
    // a failed write to standard output is reported as any other.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "guid", &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(Status::Done)
}

/// Writes the man page of guid, or of its subcommand `name` (the page
/// guid(1) refers to as guid-NAME(1)).
pub fn man(name: Option<&str>, out: &mut impl Write) -> Result<Status, Fail> {
    let mut guid = Cli::command().disable_help_subcommand(true);
    // Building names the subcommands guid-NAME, as their pages are titled.
    guid.build();
    let page = match name {
        None => guid,
        Some(name) => match guid.find_subcommand(name) {
            Some(command) => command.clone(),
            None => {
                let names: Vec<&str> = guid.get_subcommands().map(|c| c.get_name()).collect();
                output::error(format_args!(
                    "no command {} has a man page: one of {}",
                    output::Quoted(name.as_bytes()),
                    names.join(", ")
                ));
                return Ok(Status::Usage);
            }
        },
    };
    out.write_all(render(page)?.as_bytes())?;
    out.flush()?;
    Ok(Status::Done)
}

/// The page of `command`: clap_mangen's sections, with `.TH` first as
/// man-pages(7) asks, and the text after the flags in sections of its own
/// (EXIT STATUS among them) with its line breaks kept.
fn render(command: clap::Command) -> io::Result<String> {
    // Every page is of this program and version (a subcommand has none).
    let man = Man::new(command.clone()).source(concat!("guid ", env!("CARGO_PKG_VERSION")));
    let mut title = Vec::new();
    man.render_title(&mut title)?;
    let mut body = Vec::new();
    man.render_name_section(&mut body)?;
    man.render_synopsis_section(&mut body)?;
    man.render_description_section(&mut body)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut body)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(&mut body)?;
    }
    if let Some(text) = command.get_after_help() {
        after_help(&text.to_string()).to_writer(&mut body)?;
    }
    if command.get_version().is_some() {
        man.render_version_section(&mut body)?;
    }
    // Each section starts with this string definition, needed once, after
    // the title.
    let preamble = Roff::new().render();
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).replace(&preamble, "");
    Ok(text(title) + &preamble + &text(body))
}

/// The text after the flags as man page sections: a line that is not
/// indented and ends with ':' heads one ("Exit status:" is EXIT STATUS).
/// Its lines are kept as they are (no filling), as in `--help`.
fn after_help(text: &str) -> Roff {
    let mut roff = Roff::new();
    let mut open = false;
    for line in text.lines() {
        let heading = line
            .strip_suffix(':')
            .filter(|h| !h.starts_with(' ') && !h.is_empty());
        if let Some(heading) = heading {
            roff.control("SH", [heading.to_uppercase().as_str()]);
            roff.control("nf", []);
            open = true;
        } else {
            if !open {
                roff.control("SH", ["NOTES"]).control("nf", []);
                open = true;
            }
            roff.text([roman(line)]);
        }
    }
    roff.control("fi", []);
    roff
}
