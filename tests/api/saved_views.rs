//! A person's saved views of the leads list (docs/working-leads.md "The pages"): the list's
//! filters kept under a name, shown above the list for that person alone, replaced by saving
//! the name again, deleted with their ×.
use reqwest::StatusCode;

use leadhub_tests::{backend_tests, TestApp};

use crate::lead_work::{cast, lead_at, patch};
use crate::lead_work_pages::{post_form, refused};
use crate::pages::{page_shows, sign_in, Browser};

backend_tests!(a_person_saves_opens_replaces_and_deletes_views_of_the_list);

/// The id of the view whose delete button `page` shows first.
fn first_view_id(page: &str) -> String {
    let start = page.find("action=\"/leads/views/").expect("a view") + 21;
    page[start..start + page[start..].find('/').unwrap()].to_owned()
}

async fn saved(b: &mut Browser, name: &str, query: &str) -> String {
    let done = post_form(b, "/leads/views", &[("name", name), ("query", query)]).await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    done.location().to_owned()
}

async fn a_person_saves_opens_replaces_and_deletes_views_of_the_list(app: TestApp) {
    let c = cast(&app).await;
    let hot = lead_at(&app, &c.mia.key, 1, Some(c.a)).await;
    lead_at(&app, &c.mia.key, 2, Some(c.a)).await;
    let (status, body) = patch(&app, hot, &c.mia.key, serde_json::json!({"tags": ["hot"]})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut mia = sign_in(&app, "mia@example.com").await;

    // No views yet: no row of them; a filtered list offers to save itself.
    let page = page_shows(&mut mia, "/leads?tag=hot", &["Save this list as a view"]).await;
    assert!(!page.body.contains("id=\"saved-views\""), "{}", page.body);
    let page = mia.get("/leads").await;
    assert!(
        !page.body.contains("Save this list as a view"),
        "{}",
        page.body
    );

    // Saved: the name cleaned, only the list's own filters kept, in the list's order (not the
    // page, nor a word the list does not know); back on the list, the view marked as the one open.
    let to = saved(
        &mut mia,
        "  Hot   ones ",
        "tag=hot&offset=50&bogus=1&status=open",
    )
    .await;
    assert_eq!(to, "/leads?status=open&tag=hot&done=view-saved");
    page_shows(
        &mut mia,
        &to,
        &[
            "View saved: it is among your views above the list.",
            "<a href=\"/leads?status=open&amp;tag=hot\" aria-current=\"page\">Hot ones</a>",
            "1 lead matches these filters",
        ],
    )
    .await;
    // Shown on every list, linking to its filters.
    let page = page_shows(
        &mut mia,
        "/leads",
        &["aria-label=\"Delete the view Hot ones\""],
    )
    .await;
    let id = first_view_id(&page.body);

    // The same name again takes the new filters: still one view.
    saved(&mut mia, "Hot ones", "tag=hot").await;
    let page = page_shows(
        &mut mia,
        "/leads",
        &["<a href=\"/leads?tag=hot\">Hot ones</a>"],
    )
    .await;
    assert_eq!(
        page.body.matches(">Hot ones</a>").count(),
        1,
        "{}",
        page.body
    );
    assert_eq!(first_view_id(&page.body), id);

    // A list without filters, or a view without a name, is not kept.
    let form = [("name", "All"), ("query", "")];
    refused(&mut mia, "/leads/views", &form, "Filter the list first").await;
    let form = [("name", " "), ("query", "status=new")];
    refused(&mut mia, "/leads/views", &form, "Give the view a name").await;

    // Someone else sees none of Mia's views and cannot delete one.
    let mut otto = sign_in(&app, "otto@example.com").await;
    let page = otto.get("/leads").await;
    assert!(!page.body.contains("Hot ones"), "{}", page.body);
    let path = format!("/leads/views/{id}/delete");
    let denied = post_form(&mut otto, &path, &[("back", "")]).await;
    assert_eq!(denied.status, StatusCode::NOT_FOUND, "{}", denied.body);

    // Deleted from its ×, back on the list it was pressed on.
    let done = post_form(&mut mia, &path, &[("back", "tag=hot")]).await;
    assert_eq!(done.location(), "/leads?tag=hot&done=view-deleted");
    let page = page_shows(&mut mia, "/leads", &[]).await;
    assert!(!page.body.contains("id=\"saved-views\""), "{}", page.body);
}
