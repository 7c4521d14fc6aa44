//! `IdempotentRequest`: the request of an operation that honours `Idempotency-Key`
//! (`leadhub_api::idempotency`), which documents that header.
use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest};
use apistos::paths::{Parameter, ParameterDefinition, ParameterIn};
use apistos::reference_or::ReferenceOr;
use apistos::{ApiComponent, Schema};
use futures_util::future::{ready, Ready};
use schemars::schema::{InstanceType, SchemaObject};

pub struct IdempotentRequest(HttpRequest);

impl Deref for IdempotentRequest {
    type Target = HttpRequest;
    fn deref(&self) -> &HttpRequest {
        &self.0
    }
}

impl FromRequest for IdempotentRequest {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, actix_web::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(IdempotentRequest(req.clone())))
    }
}

impl ApiComponent for IdempotentRequest {
    no_schema!();

    fn parameters() -> Vec<Parameter> {
        let key = SchemaObject {
            instance_type: Some(InstanceType::String.into()),
            ..Default::default()
        };
        vec![Parameter {
            name: "Idempotency-Key".to_owned(),
            _in: ParameterIn::Header,
            description: Some(
                "1 to 255 visible ASCII characters: a repeat within 24 hours replays the first answer"
                    .to_owned(),
            ),
            required: Some(false),
            definition: Some(ParameterDefinition::Schema(Box::new(ReferenceOr::Object(
                Schema::Object(key),
            )))),
            ..Default::default()
        }]
    }
}
