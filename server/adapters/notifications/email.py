"""The email channel: SMTP with STARTTLS (default) or implicit TLS, optional login; plain text and HTML."""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Mapping
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from server.adapters.notifications.render import email_bodies
from server.services.notifications.ports import DeliveryFailed
from server.services.notifications.settings import ChannelSettings


class EmailSender:
    def __init__(self, channel: ChannelSettings) -> None:
        self.c = channel

    def _tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.c.ca_file or None)

    def message(self, document: Mapping[str, Any]) -> EmailMessage:
        subject, plain, html_body = email_bodies(document)
        msg = EmailMessage()
        msg["Subject"] = subject
        msg["From"] = self.c.sender
        msg["To"] = ", ".join(self.c.to)
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(idstring=str(document.get("id", "")), domain="outrider")
        msg["X-Outrider-Event-Id"] = str(document.get("id", ""))
        msg.set_content(plain)
        msg.add_alternative(html_body, subtype="html")
        return msg

    def send(self, document: Mapping[str, Any]) -> None:
        c = self.c
        msg = self.message(document)
        try:
            smtp: smtplib.SMTP
            if c.security == "tls":
                smtp = smtplib.SMTP_SSL(c.host, c.port, timeout=c.timeout, context=self._tls())
            else:
                smtp = smtplib.SMTP(c.host, c.port, timeout=c.timeout)
            with smtp:
                if c.security == "starttls":
                    smtp.starttls(context=self._tls())
                if c.username:
                    smtp.login(c.username, c.password)
                smtp.send_message(msg)
        except smtplib.SMTPAuthenticationError as exc:
            raise DeliveryFailed(f"SMTP login refused: {exc.smtp_code}") from None
        except smtplib.SMTPNotSupportedError as exc:
            raise DeliveryFailed(f"SMTP server: {exc}", final=True) from None
        except smtplib.SMTPRecipientsRefused:
            raise DeliveryFailed("SMTP server refused every recipient", final=True) from None
        except smtplib.SMTPResponseException as exc:
            raise DeliveryFailed(f"SMTP {exc.smtp_code}: {exc.smtp_error!r}"[:300]) from None
        except (smtplib.SMTPException, OSError) as exc:
            raise DeliveryFailed(f"cannot deliver by SMTP: {exc}") from None
