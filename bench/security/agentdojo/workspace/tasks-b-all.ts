/** Tasks 20–39 (helper B's files), for index.ts: calendar, mail, drive, files, and drive to mail. */
import { calendarTasksB } from "./tasks-b-calendar.ts";
import { driveTasksB } from "./tasks-b-drive.ts";
import { fileTasksB } from "./tasks-b-files.ts";
import { mailTasksB } from "./tasks-b-mail.ts";
import { sendTasksB } from "./tasks-b-send.ts";

export const tasksB = [...calendarTasksB, ...mailTasksB, ...driveTasksB, ...fileTasksB, ...sendTasksB];
