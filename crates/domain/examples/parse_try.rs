//! Shows what every lead-field parser makes of some input, to check a real value by hand:
//! `cargo run -p leadhub-domain --example parse_try -- "1/5/25" "(512) 555-0100 x12" "10,890 sq ft"`
//! With no arguments it reads one value per line from standard input.

use std::io::BufRead;

use leadhub_domain::parse::{
    clean_text, normalize_email, normalize_phone, normalize_url, normalize_zip,
    parse_lot_size_acres, parse_permit_date, url_domain, StateCode,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let values: Vec<String> = if args.is_empty() {
        std::io::stdin()
            .lock()
            .lines()
            .map_while(Result::ok)
            .collect()
    } else {
        args
    };
    for value in values {
        println!("{value:?}");
        println!("  clean_text           {:?}", clean_text(&value));
        println!(
            "  StateCode::parse     {:?}",
            StateCode::parse(&value).map(|c| c.as_str())
        );
        println!("  normalize_phone      {:?}", normalize_phone(&value));
        println!("  normalize_email      {:?}", normalize_email(&value));
        println!("  normalize_zip        {:?}", normalize_zip(&value));
        println!(
            "  parse_permit_date    {:?}",
            parse_permit_date(&value).map(|d| d.to_string())
        );
        println!("  parse_lot_size_acres {:?}", parse_lot_size_acres(&value));
        println!("  normalize_url        {:?}", normalize_url(&value));
        println!("  url_domain           {:?}", url_domain(&value));
    }
}
