// Swagger UI, served from the binary: no asset comes from outside, so /docs works offline.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    // Off: with it, each operation's summary (a button) holds a link, an interactive element inside another
    // that keyboard and screen-reader users cannot reach on its own (axe-core: nested-interactive).
    deepLinking: false,
    persistAuthorization: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
