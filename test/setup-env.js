// Every test process runs with the site clock in UTC, as the service does (server.ts sets the same).
process.env.TZ = "UTC";
