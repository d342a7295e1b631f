//! Progress bars for long work (drawn on stderr only when it is a terminal).

use indicatif::{ProgressBar, ProgressStyle};

pub fn bar(total: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    let style = ProgressStyle::with_template(&format!(
        "{what} [{{bar:30}}] {{pos}}/{{len}} {{elapsed_precise}} {{msg}}"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar
}
