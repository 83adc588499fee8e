"""A push service of our own on loopback, speaking Mozilla's push protocol, for Firefox's `dom.push.serverURL`.

Firefox keeps one WebSocket to its push service (subprotocol "push-notification") and exchanges JSON on it:
"hello" (the browser's user agent id), "register" (a channel per subscription, answered with the endpoint that
application servers POST to), "unregister", "notification" (a message's encrypted body in base64url with its
Content-Encoding), "ack", and "{}" pings. Application servers, here scheduling, POST RFC 8030 messages to the
endpoint over plain http; the body is passed to the browser as it came: only the browser can decrypt it.

    service = MozillaPushService()           # ws and http on free loopback ports, in threads of their own
    prefs = service.firefox_prefs()          # dom.push.serverURL and the permission to use ws:// for it
    service.gone("CHANNEL")                  # the endpoint answers 410 from now on, as for an expired subscription
    service.posts / service.acks / service.registered / service.unregistered

This is a test fixture: it keeps everything in memory and serves one browser at a time.
"""
import asyncio
import base64
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed


class MozillaPushService:
    def __init__(self, host="127.0.0.1"):
        self.host = host
        self.uaid = uuid.uuid4().hex
        self.registered = []     # channel ids, in order
        self.unregistered = []
        self.acks = []           # {"channelID", "version", "code", "at"}
        self.posts = []          # {"channelID", "status", "bytes", "encoding", "ttl", "topic", "at"}
        self.gone_channels = set()
        self.pending = []        # notifications waiting for a connected browser
        self.lock = threading.Lock()
        self.connection = None
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        threading.Thread(target=self._run_websocket, args=(started,), daemon=True).start()
        started.wait(10)
        self.http = ThreadingHTTPServer((host, 0), self._handler())
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    @property
    def websocket_url(self):
        return f"ws://{self.host}:{self.ws_port}/"

    @property
    def http_base(self):
        return f"http://{self.host}:{self.http.server_address[1]}"

    def firefox_prefs(self):
        """Firefox's preferences for subscribing here: the server, ws:// allowed for it (loopback, tests only)."""
        return {"dom.push.serverURL": self.websocket_url, "dom.push.testing.allowInsecureServerURL": True,
                "dom.push.connection.enabled": True, "dom.push.enabled": True, "dom.push.requestTimeout": 10000}

    def gone(self, channel):
        """From now on the channel's endpoint answers 410 Gone, as a push service does for an expired subscription."""
        with self.lock:
            self.gone_channels.add(channel)

    def stop(self):
        self.http.shutdown()
        self.loop.call_soon_threadsafe(self.loop.stop)

    # The WebSocket side.

    def _run_websocket(self, started):
        asyncio.set_event_loop(self.loop)

        async def start():
            server = await serve(self._browser, self.host, 0, subprotocols=["push-notification"])
            self.ws_port = server.sockets[0].getsockname()[1]
            started.set()
        self.loop.run_until_complete(start())
        self.loop.run_forever()

    async def _browser(self, connection):
        try:
            await self._converse(connection)
        except ConnectionClosed:
            pass  # the browser went away (it quits at the end of a test without a close frame)
        finally:
            if self.connection is connection:
                self.connection = None

    async def _converse(self, connection):
        async for text in connection:
            message = json.loads(text)
            kind = message.get("messageType")
            if kind == "hello":
                self.connection = connection
                await connection.send(json.dumps({"messageType": "hello", "uaid": self.uaid, "status": 200, "use_webpush": True}))
                with self.lock:
                    waiting, self.pending = self.pending, []
                for notification in waiting:
                    await connection.send(json.dumps(notification))
            elif kind == "register":
                channel = message["channelID"]
                with self.lock:
                    self.registered.append(channel)
                await connection.send(json.dumps({"messageType": "register", "channelID": channel, "status": 200,
                                                  "pushEndpoint": f"{self.http_base}/wpush/{channel}"}))
            elif kind == "unregister":
                with self.lock:
                    self.unregistered.append(message["channelID"])
                await connection.send(json.dumps({"messageType": "unregister", "channelID": message["channelID"], "status": 200}))
            elif kind == "ack":
                with self.lock:
                    self.acks += [dict(update, at=time.time()) for update in message.get("updates", [])]
            elif kind in (None,) and message == {}:
                await connection.send("{}")  # a ping's answer

    def _deliver(self, notification):
        """Passes a message to the connected browser, or keeps it for the next one that says hello."""
        connection = self.connection
        if connection is None:
            with self.lock:
                self.pending.append(notification)
            return
        asyncio.run_coroutine_threadsafe(connection.send(json.dumps(notification)), self.loop).result(10)

    # The HTTP side: where application servers POST.

    def _handler(self):
        service = self

        class Endpoint(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                channel = self.path.rsplit("/", 1)[-1]
                with service.lock:
                    known = self.path.startswith("/wpush/") and channel in service.registered
                    gone = channel in service.gone_channels or channel in service.unregistered
                status = 404 if not known else 410 if gone else 201
                service.posts.append({"channelID": channel, "status": status, "bytes": len(body), "at": time.time(),
                                      "encoding": self.headers.get("Content-Encoding"), "ttl": self.headers.get("TTL"),
                                      "topic": self.headers.get("Topic"), "vapid": (self.headers.get("Authorization") or "").split(" ")[0]})
                if status == 201:
                    version = uuid.uuid4().hex
                    service._deliver({"messageType": "notification", "channelID": channel, "version": version,
                                      "data": base64.urlsafe_b64encode(body).decode().rstrip("="),
                                      "headers": {"encoding": self.headers.get("Content-Encoding", "aes128gcm")}})
                    self.send_response(201)
                    self.send_header("Location", f"{service.http_base}/m/{version}")
                else:
                    self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        return Endpoint
