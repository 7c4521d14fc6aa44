//! Pages of a list (`{items, total, limit, offset}`): each list has its own named page type, so
//! that the document names it (`NotePage`, `LeadPage`, ...); they are built one way.
use actix_web::web::Json;

use leadhub_http::extract::Paging;

/// A page of `Item`s.
pub trait Page {
    type Item;

    fn new(items: Vec<Self::Item>, total: i64, paging: Paging) -> Self;
}

/// The page of `rows` (the domain's, already cut to the page) out of `total`, each row shown as
/// its view.
pub fn page<P, R>(rows: impl IntoIterator<Item = R>, total: i64, paging: Paging) -> Json<P>
where
    P: Page,
    P::Item: From<R>,
{
    Json(P::new(
        rows.into_iter().map(P::Item::from).collect(),
        total,
        paging,
    ))
}

/// Declares a page type of a list's views, with its doc comment (the document's description).
macro_rules! page_type {
    ($(#[$doc:meta])* $name:ident of $item:ty) => {
        $(#[$doc])*
        #[derive(serde::Serialize, schemars::JsonSchema, apistos::ApiComponent)]
        pub struct $name {
            pub items: Vec<$item>,
            pub total: i64,
            pub limit: i64,
            pub offset: i64,
        }

        impl $crate::page::Page for $name {
            type Item = $item;

            fn new(items: Vec<$item>, total: i64, paging: leadhub_http::extract::Paging) -> Self {
                $name {
                    items,
                    total,
                    limit: paging.limit,
                    offset: paging.offset,
                }
            }
        }
    };
}
pub(crate) use page_type;
