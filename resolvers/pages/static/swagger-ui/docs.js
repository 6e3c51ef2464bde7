// factgraph's REST API in Swagger UI, with nothing fetched from elsewhere: the document is this
// server's /openapi.json, and the validator badge (which would send the document to
// validator.swagger.io) is off. "Try it out" calls this server; a key goes in "Authorize"
// when the server requires one.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
