// The worker of worker-roundtrip.html: answers 300 ms after each message.
onmessage = e => setTimeout(() => postMessage(e.data * 2), 300);
