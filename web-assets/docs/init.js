// Swagger UI, served from the binary: no asset comes from outside, so /docs works offline.

// Two fixes for axe-core, as a Swagger UI plugin (its components stay unchanged):
// - its title is an h1 and each tag an h3: an h2 ("Operations", for screen readers only, see overrides.css) goes
//   between, so the headings skip no level;
// - the title block sits outside every landmark: it becomes the page's banner (the operations are its main).
function Landmarks() {
  return {
    wrapComponents: {
      InfoContainer: (Original, system) => (props) =>
        // A <header> inside Swagger UI's <section> would not be a banner: the role says it.
        system.React.createElement("div", { role: "banner" }, system.React.createElement(Original, props)),
      operations: (Original, system) => (props) =>
        system.React.createElement(
          "div",
          null,
          system.React.createElement("h2", { className: "operations-heading" }, "Operations"),
          system.React.createElement(Original, props),
        ),
    },
  };
}

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
    plugins: [Landmarks],
    layout: "BaseLayout",
  });
});
