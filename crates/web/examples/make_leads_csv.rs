//! Writes a lead CSV for `leadhub import leads` benchmarks: `make_leads_csv ROWS [FILE]`
//! (stdout without FILE). Deterministic, every row a distinct property, a few rows invalid
//! (bad state) so the reject path is exercised too.
#![forbid(unsafe_code)]

use std::io::{BufWriter, Write};

const STREETS: [&str; 12] = [
    "Main St",
    "Oak Ave",
    "Elm Rd",
    "Pine Ln",
    "Cedar Ct",
    "Maple Dr",
    "Lakeview Blvd",
    "N Lamar Blvd",
    "S Congress Ave",
    "W 5th St",
    "Riverside Dr",
    "Hillcrest Way",
];
const PLACES: [(&str, &str, &str); 6] = [
    ("Austin", "TX", "787"),
    ("Dallas", "TX", "752"),
    ("Tulsa", "OK", "741"),
    ("Denver", "CO", "802"),
    ("Phoenix", "AZ", "850"),
    ("Tampa", "FL", "336"),
];
const NAMES: [&str; 8] = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"];
const STATUSES: [&str; 4] = ["Pending", "Approved", "In-Review", "Final"];

/// A small deterministic generator (SplitMix64): the same file for the same row count.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let rows: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let out: Box<dyn Write> = match args.next() {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::new(out);
    writeln!(
        out,
        "address,city,state,zip_code,first_name,last_name,primary_phone,email_1,project_number,\
         permit_date,permit_status,property_type,lot_size,bedrooms,source"
    )?;
    let mut mix = Mix(42);
    for i in 0..rows {
        let street = STREETS[(i % STREETS.len() as u64) as usize];
        let (city, state, zip3) =
            PLACES[((i / STREETS.len() as u64) % PLACES.len() as u64) as usize];
        // One row in a thousand carries a state code that is not one: a rejected row.
        let state = if i % 1000 == 999 { "XX" } else { state };
        let first = mix.pick(&NAMES);
        let last = mix.pick(&NAMES);
        writeln!(
            out,
            "{number} {street},{city},{state},{zip3}{zip:02},{first},{last}son,(512) 555-{phone:04},\
             {first}.{i}@example.com,BP-{i:07},{month}/{day}/2025,{status},residential,{acres}.25 acres,{beds},bench",
            number = 100 + i / (STREETS.len() as u64 * PLACES.len() as u64),
            zip = mix.next() % 100,
            phone = mix.next() % 10_000,
            month = 1 + mix.next() % 12,
            day = 1 + mix.next() % 28,
            status = mix.pick(&STATUSES),
            acres = mix.next() % 5,
            beds = mix.next() % 6,
        )?;
    }
    out.flush()
}
