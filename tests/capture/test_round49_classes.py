"""Round 49's classes from blind batch b43 and the end-to-end set e2e-heldout27 (decision 0065),
on phrasings of our own. Each positive fails on 92c9532; the guards hold on both."""

from __future__ import annotations

import pytest
from test_round47_classes import capture

# --------------------------------------------------------------------------- pasted output


@pytest.mark.parametrize(
    "pasted",
    [
        # a Flutter crash: the engine's logcat line, then Dart frames under package: URIs
        "E/flutter ( 4410): [ERROR:flutter/lib/ui/ui_dart_state.cc(198)] Unhandled Exception: "
        "HttpException: Connection closed before full header was received, uri = "
        "https://orders.internal/v1/orders\n"
        "#0      IOClient.send (package:http/src/io_client.dart:94:7)\n"
        "#1      BaseClient._sendUnstreamed (package:http/src/base_client.dart:93:32)",
        # Android's own log lines, tag and pid
        "W/System.err( 4411): java.net.SocketTimeoutException: timeout after 15000ms\n"
        "I/ActivityManager( 1532): Start proc 4411:com.example.courier/u0a88 for activity",
    ],
)
def test_a_mobile_apps_log_and_dart_frames_are_no_memories(pasted: str) -> None:
    assert capture(pasted) == []


@pytest.mark.parametrize(
    "said",
    [
        "扫码页一打开就闪退\n"
        "E/AndroidRuntime( 8821): FATAL EXCEPTION: main, process com.example.scan\n"
        "D/CameraX ( 8821): bind failed, camera in use by com.example.scan/u0a91",
        "锁屏以后定位就停了，这是手机上抓的\n"
        "W/GnssLocationProvider( 1204): location updates paused for com.example.driver\n"
        "#0      LocationService._report (package:driver/services/location_service.dart:88:5)",
    ],
)
def test_log_lines_under_a_chinese_report_are_no_memories(said: str) -> None:
    found = capture(said)
    assert not [c for c in found if "8821" in c.text or "1204" in c.text], found


def test_a_file_named_by_a_pasted_build_error_is_no_memory() -> None:
    found = capture(
        "the deploy build breaks, here's the tail:\n\n"
        "Failed to compile.\n\n"
        "./src/pages/invoice/[id].tsx\n"
        "Module not found: Can't resolve '@react-pdf/renderer'\n\n"
        "> Build failed because of webpack errors"
    )
    assert not [c for c in found if "./src/pages" in c.text or "resolve" in c.text], found


def test_a_path_said_in_the_users_own_sentence_is_still_kept() -> None:
    found = capture(
        "The invoice page lives in ./src/pages/invoice/[id].tsx, and its PDF export uses "
        "@react-pdf/renderer 3.4."
    )
    assert [c for c in found if "./src/pages/invoice" in c.text], found


# --------------------------------------------------------------------------- what the model read


@pytest.mark.parametrize(
    "said",
    [
        "Read it. The mobile screens are defined in app/screens/, the API client is the "
        "src/api/client.ts module, and the feature flags config is config/flags.json.",
        "Read through it. Jobs are defined in jobs/, the mailer is the app/mailers/base.rb "
        "class, and the queue config is config/sidekiq.yml.",
        "Looked at it. The webhooks are defined in hooks/, the billing worker is the "
        "workers/billing role, and the cron config is deploy/cron.yaml.",
    ],
)
def test_an_acknowledgement_left_after_the_layout_is_vetoed_is_no_memory(said: str) -> None:
    assert capture(said, "assistant", "here's the repo") == []
