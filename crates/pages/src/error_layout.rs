//! A refusal page (404, 403, 409...) for a signed-in person keeps the site's navigation and
//! the session's cookies. `PageError` renders without the request, so it leaves its message on
//! the response (`ErrorMessage`), the `Visitor` extractor leaves who is signed in on the request
//! (`SignedIn`), and `error_layout`, around the whole application, renders the two together.
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::HttpMessage;
use tera::Context;

use crate::render::render;
use crate::session::Visitor;

/// What a refusal page says (its template's context), left on its response.
#[derive(Clone)]
pub(crate) struct ErrorMessage(pub Context);

/// Who is signed in, left on the request once the `Visitor` is known, with the cookies the page
/// would have set (a refreshed session's among them: losing them would sign the person out).
/// The layout is made from it only for a refusal, not for every page.
#[derive(Clone)]
pub(crate) struct SignedIn(pub Visitor);

/// Renders a refusal page again with the navigation when the person is signed in; every other
/// response passes as it is.
pub async fn error_layout(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let message = res.response().extensions().get::<ErrorMessage>().cloned();
    let signed_in = res.request().extensions().get::<SignedIn>().cloned();
    let (Some(ErrorMessage(mut context)), Some(SignedIn(visitor))) = (message, signed_in) else {
        return Ok(res.map_into_boxed_body());
    };
    context.extend(crate::base_context(Some(&visitor), ""));
    for c in &visitor.cookies {
        if let Err(e) = res.response_mut().add_cookie(c) {
            tracing::error!(error = %e, "cookie not set");
        }
    }
    match render("message.html", &context) {
        Ok(body) => Ok(res.map_body(|_, _| BoxBody::new(body))),
        // `render` has logged why; the page without the navigation still says the refusal.
        Err(_) => Ok(res.map_into_boxed_body()),
    }
}
