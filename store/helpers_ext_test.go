package store_test

// deskContact is an on-call contact of account 1001 with one webhook.
const deskContact = `{"account_number": "1001", "name": "Desk", "escalation_level": 1,
	"delivery_methods": [{"type": "external_api", "url": "https://hooks.example/in", "payload_type": "JSON",
	"data": [{"field": "text", "value": "{{message.content}}"}]}]}`
