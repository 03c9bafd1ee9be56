//! The page's files, built into the binary so that it works offline and loads nothing from
//! another host.

/// (path, content type, body).
pub const FILES: &[(&str, &str, &str)] = &[
    ("/", "text/html; charset=utf-8", include_str!("../assets/index.html")),
    ("/style.css", "text/css; charset=utf-8", include_str!("../assets/style.css")),
    ("/board.js", "text/javascript; charset=utf-8", include_str!("../assets/board.js")),
    ("/app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
];
