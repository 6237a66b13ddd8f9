# syntax=docker/dockerfile:1
# One image for every Readpack process; docker-compose.yml picks the command (API cluster or a stage).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# Debian's OCR language data (English fast model, Chinese) and a CJK font: pdfjs falls back to it
# for CJK text in PDFs that do not embed their fonts (packages/render/src/cjk-fallback.ts); qpdf
# splits a large PDF into one file per slice (apps/worker/src/pdf-split.ts).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tesseract-ocr-eng tesseract-ocr-chi-sim fonts-wqy-zenhei fontconfig qpdf \
 && rm -rf /var/lib/apt/lists/*
# LibreOffice for the convert stage, only when asked for (docker-compose.yml: LIBREOFFICE=true).
ARG LIBREOFFICE=false
RUN if [ "$LIBREOFFICE" = "true" ]; then apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libreoffice-core-nogui libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui \
 && rm -rf /var/lib/apt/lists/*; fi
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# A named volume mounted here starts as a copy of this directory, ownership included: without it
# the non-root processes could not write their data.
RUN mkdir -p /data && chown node:node /data
USER node
ENV DATA_DIR=/data HOST=0.0.0.0
EXPOSE 3000
CMD ["node", "apps/api/dist/cluster.js"]
