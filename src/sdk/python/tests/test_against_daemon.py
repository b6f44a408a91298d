"""The Python SDK against a real daemon over TLS, started by test/e2e/sdk-python.test.ts.

Environment: SVC_ENDPOINT, SVC_TOKEN (the agent), SVC_CA_CERT, and the harness's
SVC_TEST_* variables (approver token, a proxy that loses answers, one that makes the daemon
answer 503, the task, a requestable capability, a run id, the operation ids).
"""

import json
import os
import unittest

from svc_sdk import SDK_METHODS, Allowed, Conflict, DaemonFailure, Deferred, OutcomeUnknown, Refused, SvcClient, SvcError

ENV = os.environ
REQUIRED = ["SVC_ENDPOINT", "SVC_TOKEN", "SVC_CA_CERT", "SVC_TEST_APPROVER_TOKEN", "SVC_TEST_DROP_ENDPOINT",
            "SVC_TEST_LOCKED_ENDPOINT", "SVC_TEST_TASK", "SVC_TEST_REQUESTABLE", "SVC_TEST_RUN", "SVC_TEST_OPERATIONS"]
TASK = ENV.get("SVC_TEST_TASK", "")
_n = [0]


def step() -> str:
    _n[0] += 1
    return f"py-{ENV['SVC_TEST_RUN']}-{_n[0]}"


def ask(capability: str, action: str = "write", **more):
    return dict(capability=capability, action=action, task_id=TASK, effect_key_step=step(), **more)


class AgainstDaemon(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [k for k in REQUIRED if not ENV.get(k)]
        if missing:
            raise RuntimeError(f"run these tests through test/e2e/sdk-python.test.ts; missing {', '.join(missing)}")
        cls.bot = SvcClient()
        cls.bob = SvcClient(token=ENV["SVC_TEST_APPROVER_TOKEN"])

    def test_methods_are_the_daemon_operations(self):
        self.assertEqual(sorted(SDK_METHODS), sorted(json.loads(ENV["SVC_TEST_OPERATIONS"])))
        for name in SDK_METHODS.values():
            self.assertTrue(callable(getattr(SvcClient, name, None)), name)

    def test_identity_health_capabilities(self):
        self.assertEqual(self.bot.identity(), {"tenant_id": "acme", "actor_id": "bot"})
        self.assertEqual(self.bot.health(), {"status": "ok"})
        names = sorted(c["name"] for c in self.bot.capabilities()["capabilities"])
        self.assertEqual(names, sorted(["notes.read", "payments.send", "crm.contacts.create", "crm.contacts.purge", "mail.send"]))

    def test_allowed_grant_and_conflict(self):
        req = ask("notes.read", "read", intent="read the notes")
        out = self.bot.action(**req)
        self.assertIsInstance(out, Allowed, out)
        self.assertEqual(out.request["actor_id"], "bot")
        grant = out.decision["grant"]["grant_id"]
        self.assertEqual(self.bot.present_grant(grant)["presented_by"], "bot")
        effect = self.bot.grant_receipt(grant, "succeeded", effect_id="n-1")
        self.assertEqual((effect["intent_id"], effect["observed"]), (out.decision["intent_id"], True))
        again = self.bot.action(**req)
        self.assertIsInstance(again, Conflict, again)
        self.assertEqual((again.code, again.intent_id, again.prior_outcome), ("duplicate_effect", out.decision["intent_id"], "allowed"))

    def test_refused_with_sealed_receipt_and_federate(self):
        out = self.bot.action(**ask("notes.read", "read", amount_usd=5000))
        self.assertIsInstance(out, Refused, out)
        self.assertEqual(out.code, "budget_exceeded")
        self.assertIn("budget", out.remedy)
        receipt = out.decision["receipt"]
        self.assertEqual(self.bot.receipt(receipt["receipt_id"])["allowed"], False)
        fed = self.bot.federate(**ask("notes.read", "read"))
        self.assertIsInstance(fed, Refused)
        self.assertEqual((fed.code, fed.reason, fed.decision), ("no_federated_backend", "no federated backend", None))

    def test_deferred_approved_resumed(self):
        out = self.bot.action(**ask("payments.send", amount_usd=1))
        self.assertIsInstance(out, Deferred, out)
        self.assertEqual(self.bot.approval(out.approval_id)["status"], "pending")
        self.assertIsInstance(self.bot.resume(out), Deferred)
        pending = self.bob.approvals(status="pending", limit=200)["items"]
        self.assertIn(out.approval_id, [a["approval_id"] for a in pending])
        self.bob.decide_approval(out.approval_id, "approve", note="ok")
        resumed = self.bot.resume(out)
        self.assertIsInstance(resumed, Allowed, resumed)
        self.assertEqual(resumed.decision["intent_id"], out.decision["intent_id"])
        with self.assertRaises(SvcError) as e:
            self.bot.resume(out)
        self.assertEqual(e.exception.code, "no_deferral")

    def test_brokered_and_resume_brokered(self):
        out = self.bot.brokered(**ask("crm.contacts.create", params={"team": "sales", "name": "Ada"}))
        self.assertIsInstance(out, Allowed, out)
        self.assertEqual((out.decision["provider"]["outcome"], out.decision["provider"]["status"]), ("succeeded", 201))
        deferred = self.bot.brokered(**ask("crm.contacts.purge", params={"team": "ops"}))
        self.assertIsInstance(deferred, Deferred, deferred)
        with self.assertRaises(SvcError) as e:
            self.bot.resume(deferred)
        self.assertEqual(e.exception.code, "usage")
        self.bob.decide_approval(deferred.approval_id, "approve")
        resumed = self.bot.resume_brokered(deferred)
        self.assertIsInstance(resumed, Allowed, resumed)
        self.assertEqual(resumed.decision["provider"]["outcome"], "succeeded")

    def test_observe_pass_through(self):
        out = self.bot.action(**ask("mail.send"))
        self.assertIsInstance(out, Allowed, out)
        seen = self.bot.observe(out.decision["intent_id"], "succeeded", effect_id="mail-1")
        self.assertEqual((seen["effect_id"], seen["observed"]), ("mail-1", True))

    def test_access_request_card_entitlement_revoke(self):
        cap = ENV["SVC_TEST_REQUESTABLE"]
        self.assertIn(cap, [c["name"] for c in self.bot.catalogue()])
        made = self.bot.request_access(cap, "monthly report", 3600)
        rid = made["access_request"]["access_request_id"]
        self.assertEqual(self.bot.access_request(rid)["status"], "pending")
        card = next(c for c in self.bob.manager_cards() if c["access_request_id"] == rid)
        decided = self.bob.decide_manager_card(card["card_id"], "approve")
        self.assertEqual(decided["entitlement"]["status"], "active")
        self.assertIn(cap, [e["capability"] for e in self.bot.entitlements(status="active")["items"]])
        self.assertEqual(self.bot.revoke_access_request(rid, note="done")["access_request"]["status"], "revoked")

    def test_tasks_constraints_receipt_pages(self):
        self.assertEqual([t["task_id"] for t in self.bot.tasks()["items"]], [TASK])
        self.assertEqual(self.bot.task(TASK)["status"], "active")
        self.assertFalse(self.bot.execution_constraints(TASK)["installed"])
        self.bot.action(**ask("notes.read", "read"))
        self.bot.action(**ask("notes.read", "read"))
        pages = list(self.bot.receipts(task_id=TASK, limit=1))
        self.assertGreater(len(pages), 1)
        seqs = [r["sequence"] for p in pages for r in p["items"]]
        self.assertEqual(seqs, sorted(set(seqs)))

    def test_lost_response_is_unknown_and_reconciled(self):
        lossy = SvcClient(endpoint=ENV["SVC_TEST_DROP_ENDPOINT"])
        req = ask("notes.read", "read")
        out = lossy.action(**req)
        self.assertIsInstance(out, OutcomeUnknown, out)
        self.assertEqual((out.task_id, out.effect_key_step), (TASK, req["effect_key_step"]))
        found = self.bot.reconcile(TASK, req["effect_key_step"])
        self.assertTrue(found.found)
        self.assertEqual(found.outcome, "allowed")
        again = self.bot.action(**req)
        self.assertIsInstance(again, Conflict)
        self.assertEqual(again.intent_id, found.intent_id)
        none = self.bot.reconcile(TASK, "never-sent")
        self.assertFalse(none.found)
        self.assertIn("does not prove", none.note)

    def test_daemon_failure_commits_nothing(self):
        busy = SvcClient(endpoint=ENV["SVC_TEST_LOCKED_ENDPOINT"])
        req = ask("notes.read", "read")
        out = busy.action(**req)
        self.assertIsInstance(out, DaemonFailure, out)
        self.assertEqual((out.status, out.code), (503, "unavailable"))
        self.assertFalse(self.bot.reconcile(TASK, req["effect_key_step"]).found)
        self.assertIsInstance(self.bot.action(**req), Allowed)

    def test_unreachable_is_an_error_never_an_empty_list(self):
        with self.assertRaises(SvcError) as e:
            SvcClient(endpoint="https://127.0.0.1:1").capabilities()
        self.assertEqual(e.exception.code, "unreachable")
        untrusted = SvcClient(env={"SVC_ENDPOINT": ENV["SVC_ENDPOINT"], "SVC_TOKEN": ENV["SVC_TOKEN"]})
        with self.assertRaises(SvcError) as e:
            untrusted.capabilities()
        self.assertIn("SVC_CA_CERT", e.exception.remedy)
        with self.assertRaises(SvcError) as e:
            SvcClient(token="svc_not-a-token").capabilities()
        self.assertEqual(e.exception.status, 401)
        with self.assertRaises(SvcError) as e:
            SvcClient(env={})
        self.assertEqual(e.exception.field, "SVC_TOKEN")
        with self.assertRaises(SvcError) as e:
            SvcClient(token="svct_a\r\nInjected: 1")
        self.assertEqual((e.exception.code, e.exception.field), ("usage", "SVC_TOKEN"))


if __name__ == "__main__":
    unittest.main()
