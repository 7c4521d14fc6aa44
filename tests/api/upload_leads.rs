//! The leads of an upload (`/leads?upload={id}`, `GET /api/v1/leads?upload=`): the upload page
//! links to exactly the leads it created or updated, and the filter never shows anyone more than
//! they may see (docs/imports.md, docs/search.md).
use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::json;

use leadhub_tests::{backend_tests, TestApp, TestUser};

use crate::helpers::{join, listed_ids, team};
use crate::lead_pages::{batch, lead};
use crate::lead_uploads::{assert_counts, count, finished, upload};
use crate::lead_work::set_role;
use crate::pages::{sign_in, Browser, Page};

backend_tests!(
    the_upload_page_links_to_exactly_its_leads,
    an_outsider_gets_nothing_of_an_upload,
    the_uploads_list_splits_merged_and_skipped_and_links_only_to_leads,
);

/// One new lead, a duplicate of the existing 9 Elm Street (updated), a bad state (the row kept),
/// a shifted row (rejected), and a second row of the first property (one lead, counted once).
const FIRST: &str = "\
address,city,state,zip_code,first_name
1 Main St,Austin,TX,78701,Ann
9 Elm Street,Austin,TX,78701,Again
2 Oak Ave,Austin,XX,78701,Bo
3 Elm Rd,Austin,TX,78701,Cy,shifted
1 Main Street,Austin,TX,78701,Ann
";

const SECOND: &str = "address,city,state,zip_code\n5 Pine St,Austin,TX,78701\n";

/// The ids of the leads a `/leads` page lists.
fn listed(page: &Page) -> BTreeSet<i64> {
    page.body
        .split("<td data-label=\"Address\"><a href=\"/leads/")
        .skip(1)
        .map(|rest| rest.split(['?', '"']).next().unwrap().parse().unwrap())
        .collect()
}

/// The ids of the first 100 leads `key`'s holder lists with `query` (`&name=value…`, or empty).
async fn api_ids(app: &TestApp, key: &str, query: &str) -> BTreeSet<i64> {
    let listed = listed_ids(app, key, &format!("limit=100{query}")).await;
    listed.into_iter().collect()
}

/// Alice's team Alpha with a lead at 9 Elm Street and one at 7 Elm Street, the two uploads
/// imported; answers Alice, her team and the first upload's page path.
async fn two_uploads(app: &TestApp) -> (TestUser, i64, String) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(app, "Alpha", &alice).await;
    let mut existing = vec![lead(9, "Austin", "permits"), lead(7, "Austin", "permits")];
    for l in &mut existing {
        l["team_id"] = json!(team_id);
    }
    batch(app, &alice, existing).await;
    let mut b = sign_in(app, "alice@example.com").await;
    let sent = upload(&mut b, "/leads/import", team_id, None, FIRST.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let first = sent.location().to_owned();
    let done = finished(&mut b, &first).await;
    assert_eq!(count(&done, "created"), 2, "{}", done.body);
    let sent = upload(&mut b, "/leads/import", team_id, None, SECOND.as_bytes()).await;
    finished(&mut b, sent.location()).await;
    (alice, team_id, first)
}

async fn the_upload_page_links_to_exactly_its_leads(app: TestApp) {
    let (alice, _, first) = two_uploads(&app).await;
    let alice = alice.key;
    let id: i64 = first.trim_start_matches("/uploads/").parse().unwrap();
    let all = api_ids(&app, &alice, "").await;
    assert_eq!(all.len(), 5, "7 and 9 Elm, 1 Main, 2 Oak, 5 Pine");
    // The upload's leads by address: what it created (1 Main, 2 Oak) and the duplicate it
    // merged into (9 Elm); not 7 Elm (not in the file) nor 5 Pine (another upload's).
    let (_, page) = app.get("/api/v1/leads?limit=100", &alice).await;
    let by_address = |street: &str| -> i64 {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| {
                l["address"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with(street)
            })
            .unwrap_or_else(|| panic!("{street}: {page}"))["id"]
            .as_i64()
            .unwrap()
    };
    let expected: BTreeSet<i64> = ["1 Main", "9 Elm", "2 Oak"].map(by_address).into();

    let mut b = sign_in(&app, "alice@example.com").await;
    let done = b.get(&first).await;
    let link = format!("href=\"/leads?upload={id}\"");
    assert!(done.body.contains(&link), "{}", done.body);
    assert!(done.body.contains("See the 3 leads"), "{}", done.body);
    let uploads = b.get("/uploads").await;
    assert!(uploads.body.contains(&link), "{}", uploads.body);

    let list = b.get(&format!("/leads?upload={id}")).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.body);
    assert_eq!(listed(&list), expected, "{}", list.body);
    // Shown as an active filter, with the file's name and a link that removes it.
    assert!(list.body.contains("id=\"upload-filter\""), "{}", list.body);
    assert!(list.body.contains("leads.csv"), "{}", list.body);
    assert!(
        list.body
            .contains("id=\"remove-upload-filter\" href=\"/leads\""),
        "{}",
        list.body
    );
    // Its accessible name contains the words it shows (WCAG 2.5.3, axe
    // label-content-name-mismatch): a speech user says "Remove this filter".
    let link = list.text_after("id=\"remove-upload-filter\"", '<');
    let (attributes, shown) = link.split_once('>').unwrap();
    let name = attributes
        .split_once("aria-label=\"")
        .map_or(shown, |(_, label)| label.split('"').next().unwrap());
    assert_eq!(shown, "Remove this filter", "{link}");
    assert!(name.starts_with(shown), "{link}");
    // With another filter, removing the upload keeps the other one; the form keeps the upload.
    let narrowed = b.get(&format!("/leads?upload={id}&q=main")).await;
    assert_eq!(listed(&narrowed), [by_address("1 Main")].into());
    assert!(
        narrowed.body.contains("href=\"/leads?q=main\""),
        "{}",
        narrowed.body
    );
    assert!(
        narrowed
            .body
            .contains(&format!("name=\"upload\" value=\"{id}\"")),
        "{}",
        narrowed.body
    );
    // The API and the export take the same filter.
    assert_eq!(
        api_ids(&app, &alice, &format!("&upload={id}")).await,
        expected
    );
    let csv = b.get(&format!("/leads/export?upload={id}")).await;
    assert_eq!(
        csv.body.lines().count(),
        4,
        "a header and 3 leads: {}",
        csv.body
    );
    // An upload that does not exist finds nothing; a word is a 422.
    assert!(api_ids(&app, &alice, "&upload=999999").await.is_empty());
    let (status, body) = app.get("/api/v1/leads?upload=abc", &alice).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["query", "upload"]));
}

async fn an_outsider_gets_nothing_of_an_upload(app: TestApp) {
    let (alice, alpha, first) = two_uploads(&app).await;
    let id: i64 = first.trim_start_matches("/uploads/").parse().unwrap();
    let bob = app.user("bob@example.com").await;
    let beta = team(&app, "Beta", &alice).await;
    join(&app, beta, &bob).await;
    let query = format!("&upload={id}");
    assert!(api_ids(&app, &bob.key, &query).await.is_empty());
    let mut b = sign_in(&app, "bob@example.com").await;
    let list = b.get(&format!("/leads?upload={id}")).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(listed(&list).is_empty(), "{}", list.body);
    assert!(!list.body.contains("leads.csv"), "{}", list.body);
    assert!(
        list.body.contains(&format!("upload #{id}")),
        "{}",
        list.body
    );

    // Alice moves one of the upload's leads into Beta, which Bob is in too: Bob sees that lead,
    // but not that it came from Alpha's upload.
    set_role(&app, alpha, &alice, "owner").await;
    let moved = *api_ids(&app, &alice.key, &query).await.first().unwrap();
    let (status, body) = app
        .post(
            &format!("/api/v1/leads/{moved}/move"),
            &alice.key,
            json!({"team_id": beta}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(api_ids(&app, &bob.key, "").await.contains(&moved));
    assert!(api_ids(&app, &bob.key, &query).await.is_empty());
    // Alice, who may see the upload, still finds it among its leads.
    assert!(api_ids(&app, &alice.key, &query).await.contains(&moved));
}

/// The cells of upload `id`'s row of the `/uploads` list, each cell's text with its markup.
fn upload_row(list: &Page, id: &str) -> Vec<String> {
    let start = list
        .body
        .find(&format!("<a href=\"{id}\">"))
        .unwrap_or_else(|| panic!("{id}: {}", list.body));
    let row = &list.body[start..];
    let row = &row[..row.find("</tr>").unwrap()];
    std::iter::once(row)
        .chain(row.split("<td>").skip(1))
        .map(|cell| cell.split("</td>").next().unwrap().trim().to_owned())
        .collect()
}

/// A leads file uploaded into `team_id`: its page's path and the page once the import finished.
async fn import(b: &mut Browser, team_id: i64, bytes: &str) -> (String, Page) {
    let sent = upload(b, "/leads/import", team_id, None, bytes.as_bytes()).await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.body);
    let page = finished(b, sent.location()).await;
    (sent.location().to_owned(), page)
}

/// The uploads list shows the split of the upload's own page (merged, skipped apart), and links
/// to an upload's leads only when it created or merged some; the upload's page likewise offers
/// its leads only when there are any.
async fn the_uploads_list_splits_merged_and_skipped_and_links_only_to_leads(app: TestApp) {
    let alice = app.user("alice@example.com").await;
    let team_id = team(&app, "Alpha", &alice).await;
    let mut b = sign_in(&app, "alice@example.com").await;
    let (_, first) = import(&mut b, team_id, SECOND).await;
    assert_counts(&first, &[("created", 1), ("merged", 0)]);
    // The same file again: its row is identical to the lead, skipped; nothing to list.
    let (again, page) = import(&mut b, team_id, SECOND).await;
    assert_counts(&page, &[("created", 0), ("merged", 0), ("skipped", 1)]);
    assert!(!page.body.contains("id=\"upload-leads\""), "{}", page.body);
    assert!(!page.body.contains("See the 0 leads"), "{}", page.body);
    // One row identical to the lead (skipped), one that adds an owner's name (merged).
    let (mixed, page) = import(
        &mut b,
        team_id,
        "address,city,state,zip_code,first_name\n5 Pine St,Austin,TX,78701,\n5 Pine St,Austin,TX,78701,Bo\n",
    )
    .await;
    assert_counts(&page, &[("created", 0), ("merged", 1), ("skipped", 1)]);
    assert!(page.body.contains("See the 1 lead<"), "{}", page.body);

    let list = b.get("/uploads").await;
    assert!(list.body.contains("<th>Skipped</th>"), "{}", list.body);
    // File, kind, team, uploaded, status, rows, created, merged, skipped, rejected, warnings, link.
    let figures = |id: &str| upload_row(&list, id)[5..11].to_vec();
    assert_eq!(
        figures(&mixed),
        ["2", "0", "1", "1", "0", "0"],
        "{}",
        list.body
    );
    assert_eq!(
        figures(&again),
        ["1", "0", "0", "1", "0", "0"],
        "{}",
        list.body
    );
    let leads_link = |id: &str| format!("href=\"/leads?upload={}\"", &id["/uploads/".len()..]);
    assert_eq!(
        upload_row(&list, &mixed)[11],
        format!("<a {}>Leads</a>", leads_link(&mixed))
    );
    assert_eq!(upload_row(&list, &again)[11], "", "{}", list.body);
}
